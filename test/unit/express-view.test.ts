import { expect } from 'chai';
import express from 'express';
import type { IncomingMessage } from 'node:http';
import { expressView, hostnameOf } from '../../src/shared/http/express-view';

/** A request as Node hands it over: headers and a socket, nothing Express has set. */
function requestFrom(headers: Record<string, string>, remoteAddress = '203.0.113.9') {
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

/** What Express's own getters say of the request, through the app's request prototype. */
function expressSays(app: express.Express, req: IncomingMessage) {
  const view = Object.create(app.request) as express.Request;
  Object.assign(view, { headers: req.headers, socket: req.socket });
  return { hostname: view.hostname, ip: view.ip };
}

describe('expressView: Express’s hostname and ip of a request Express has not seen', () => {
  const hosts = ['example.com', 'Example.COM:8080', '[::1]:3000', '[::1]', '127.0.0.1:80', ''];

  for (const trust of [false, 'loopback', 1] as const) {
    it(`agrees with Express's getters with trust proxy ${String(trust)}`, () => {
      const app = express();
      app.set('trust proxy', trust);
      const viewOf = expressView(app);
      for (const host of hosts) {
        for (const remote of ['203.0.113.9', '127.0.0.1']) {
          const headers: Record<string, string> = {
            'x-forwarded-for': '198.51.100.1',
            'x-forwarded-host': 'forwarded.example',
          };
          if (host) headers.host = host;
          const req = requestFrom(headers, remote);
          const { hostname, ip } = viewOf(req);
          expect({ hostname, ip }, `${host} from ${remote}`).to.deep.equal(expressSays(app, req));
        }
      }
    });
  }

  it('drops the port of a Host header and keeps an IPv6 literal whole', () => {
    expect(hostnameOf('example.com:8080')).to.equal('example.com');
    expect(hostnameOf('[2001:db8::1]:443')).to.equal('[2001:db8::1]');
    expect(hostnameOf('[2001:db8::1]')).to.equal('[2001:db8::1]');
    expect(hostnameOf('example.com')).to.equal('example.com');
    expect(hostnameOf(undefined)).to.equal(undefined);
    expect(hostnameOf('')).to.equal(undefined);
  });
});
