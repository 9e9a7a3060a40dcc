import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { probeDestination, type ProbeOptions } from '../workers/link-checks/link-check.probe';

/** A loopback server answering each request with `answer`, recording method and path. */
async function serve(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const OPEN: ProbeOptions = { allowPrivate: true, userAgent: 'linkqr-test' };

describe('link check probe (issue 24, item 5)', () => {
  it('follows a redirect and judges the page it ends on', async () => {
    const target = await serve((req, res) => {
      if (req.url === '/old') res.writeHead(301, { location: '/moved' }).end();
      else res.writeHead(404).end();
    });
    try {
      const result = await probeDestination(`http://127.0.0.1:${target.port}/old`, OPEN);
      expect(result).to.deep.equal({ kind: 'failed', error: 'HTTP 404' });
      // HEAD's 404 is asked again with GET, in case the server only lacks HEAD.
      expect(target.seen).to.deep.equal(['HEAD /old', 'HEAD /moved', 'GET /moved']);
    } finally {
      await target.close();
    }
  });

  it('refuses a host name that resolves to a private address, requesting nothing', async () => {
    const target = await serve((_req, res) => res.end('ok'));
    try {
      const result = await probeDestination(`http://shop.example:${target.port}/`, {
        allowPrivate: false,
        userAgent: 'linkqr-test',
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(result).to.deep.equal({
        kind: 'refused',
        error: 'destination is a private or local network address: not checked',
      });
      expect(target.seen).to.deep.equal([]);
    } finally {
      await target.close();
    }
  });

  it('checks every redirect hop against the policy: a public page cannot send the check inside', async () => {
    const target = await serve((req, res) => {
      const port = (req.socket.address() as AddressInfo).port;
      if (req.url === '/away')
        res.writeHead(302, { location: `http://internal.test:${port}/secret` });
      res.end();
    });
    // The loopback server stands in for a public host; only 127.0.0.2 counts as private here.
    const policy: ProbeOptions = {
      allowPrivate: false,
      userAgent: 'linkqr-test',
      resolve: async (host) => [
        { address: host === 'internal.test' ? '127.0.0.2' : '127.0.0.1', family: 4 },
      ],
      isForbidden: (address) => address === '127.0.0.2',
    };
    try {
      const at = `http://public.test:${target.port}`;
      expect(await probeDestination(`${at}/ok`, policy)).to.deep.equal({ kind: 'ok' });
      expect(await probeDestination(`${at}/away`, policy)).to.deep.equal({
        kind: 'refused',
        error: 'destination is a private or local network address: not checked',
      });
      // The hop into the private address was refused before anything was sent to it.
      expect(target.seen).to.deep.equal(['HEAD /ok', 'HEAD /away']);
    } finally {
      await target.close();
    }
  });

  it('counts a destination that never answers as a failed check', async () => {
    const target = await serve(() => undefined);
    try {
      const result = await probeDestination(`http://127.0.0.1:${target.port}/slow`, {
        ...OPEN,
        timeoutMs: 200,
      });
      expect(result).to.deep.equal({ kind: 'failed', error: 'no answer (timed out)' });
    } finally {
      await target.close();
    }
  });

  it('counts a refused connection and a 403 as they are: no answer, and an answer', async () => {
    const target = await serve((_req, res) => res.writeHead(403).end());
    const { port } = target;
    try {
      expect(await probeDestination(`http://127.0.0.1:${port}/`, OPEN)).to.deep.equal({
        kind: 'ok',
      });
    } finally {
      await target.close();
    }
    expect(await probeDestination(`http://127.0.0.1:${port}/`, OPEN)).to.deep.equal({
      kind: 'failed',
      error: 'no answer (ECONNREFUSED)',
    });
  });
});
