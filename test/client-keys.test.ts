import { expect } from 'chai';
import { loadConfig } from '../src/config';
import { startTestApp, type TestApp } from './support/app-harness';
import { DashboardClient } from './support/dashboard';
import { testRedisPrefix } from './support/environment';

/** Issue 29, M5: no spoofable client address, and IPv6 clients counted per /64. */
describe('client addresses in per-client limits', () => {
  it('refuses TRUST_PROXY=true, naming what to give instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).to.throw(
      /TRUST_PROXY.*true would trust any X-Forwarded-For: give the number of proxies in front/,
    );
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).to.throw(/yes is not an address or a CIDR/);
  });

  it('takes a hop count or a list of proxy addresses and CIDRs', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16, loopback' }).trustProxy).to.equal(
      '10.0.0.1,10.1.0.0/16,loopback',
    );
    expect(loadConfig({}).trustProxy).to.equal(false);
  });

  describe('behind a proxy on loopback', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({
        TRUST_PROXY: 'loopback',
        SIGNIN_LIMIT_PER_IP: '2',
        SIGNIN_LIMIT_PER_ACCOUNT: '1000',
        REDIS_PREFIX: `${testRedisPrefix}client-keys:`,
      });
    });
    after(() => app.close());

    const failFrom = async (address: string) => {
      const dash = new DashboardClient(app.url);
      const headers = { 'x-forwarded-for': address };
      await dash.send('/app/signin', { headers });
      return dash.send('/app/signin', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: new URLSearchParams({
          _csrf: dash.csrf,
          email: 'nobody@example.test',
          password: 'wrong!!',
        }).toString(),
      });
    };

    it('counts IPv6 sign-in failures per /64: other addresses of it are throttled too', async () => {
      expect((await failFrom('2001:db8:aa:1::1')).status).to.equal(401);
      expect((await failFrom('2001:db8:aa:1::2')).status).to.equal(401);
      const third = await failFrom('2001:db8:aa:1:ffff:ffff:ffff:ffff');
      expect(third.status).to.equal(429);
      expect(third.text).to.include('Too many failed sign-ins');
      // The next /64 is another client.
      expect((await failFrom('2001:db8:aa:2::1')).status).to.equal(401);
    });
  });
});
