import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn } from './support/dashboard';
import { requestAs } from './support/hosts';
import { createLink } from './support/links';
import { createTestUser } from './support/users';

/** Issue 29, M2/M3: the dashboard, the API, the docs and the metrics only on the service's hosts. */
describe('the service’s own surfaces answer only on its own hosts', () => {
  describe('with PUBLIC_URL alone', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    it('answers 404 for /app, /api, /docs and /metrics on any other host', async () => {
      const { apiKey } = await createTestUser();
      const auth = { authorization: `Bearer ${apiKey}` };
      for (const path of [
        '/app/signin',
        '/api/account',
        '/docs',
        '/metrics',
        '/api/openapi.json',
      ]) {
        const elsewhere = await requestAs(app.url, path, 'go.attacker.example', { headers: auth });
        expect(elsewhere.status, path).to.equal(404);
        expect(elsewhere.text, path).not.to.include('"error":0');
        const own = await requestAs(app.url, path, 'linkqr.test', { headers: auth });
        expect(own.status, path).to.equal(200);
      }
    });

    it('takes a session only on the host it was opened on', async () => {
      const owner = await createDashboardUser();
      const dash = await signedIn(app.url, owner);
      const here = await requestAs(app.url, '/app/api/account', new URL(app.url).host, {
        headers: { cookie: dash.cookie },
      });
      expect(here.status).to.equal(200);
      const moved = await requestAs(app.url, '/app/api/account', 'linkqr.test', {
        headers: { cookie: dash.cookie },
      });
      expect(moved.status).to.equal(401);
      expect(JSON.parse(moved.text)).to.deep.include({
        error: 1,
        message: 'Sign in at /app/signin first',
      });
    });

    it('refuses /app/api calls a browser marks as not made by a dashboard page (403)', async () => {
      const owner = await createDashboardUser();
      const dash = await signedIn(app.url, owner);
      const call = (headers: Record<string, string>) => dash.send('/app/api/account', { headers });
      const page = `${app.url}/app/links`;
      const refused: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site', referer: page },
        { 'sec-fetch-site': 'same-site', referer: page },
        { 'sec-fetch-site': 'same-origin', referer: `${app.url}/abc123` },
        { 'sec-fetch-site': 'same-origin' },
      ];
      for (const headers of refused) {
        const res = await call(headers);
        expect(res.status, JSON.stringify(headers)).to.equal(403);
        expect(res.body).to.deep.include({
          error: 1,
          message: 'The dashboard API answers only calls made by the dashboard’s pages',
        });
      }
      expect((await call({ 'sec-fetch-site': 'same-origin', referer: page })).status).to.equal(200);
      expect((await call({})).status).to.equal(200);
    });
  });

  describe('with the dashboard on its own origin (APP_URL)', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ APP_URL: 'http://app.linkqr.test' });
    });
    after(() => app.close());

    it('serves /app only on APP_URL’s host and no visitor route there', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/landing' });
      expect((await requestAs(app.url, '/app/signin', 'app.linkqr.test')).status).to.equal(200);
      expect((await requestAs(app.url, '/app/signin', 'linkqr.test')).status).to.equal(404);
      expect((await requestAs(app.url, '/app/signin', '127.0.0.1')).status).to.equal(404);
      const visitor = await requestAs(app.url, `/${link.alias}`, 'linkqr.test');
      expect(visitor.status).to.equal(302);
      // Twice: the second would be the cached fast path.
      for (let i = 0; i < 2; i += 1) {
        const onApp = await requestAs(app.url, `/${link.alias}`, 'app.linkqr.test');
        expect(onApp.status).to.equal(404);
      }
    });

    it('lets /app/api calls through without fetch-metadata checks (no shared origin)', async () => {
      const res = await requestAs(app.url, '/app/api/account', 'app.linkqr.test', {
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      // Not the 403 of a shared origin: the session check answers.
      expect(res.status).to.equal(401);
    });
  });

  describe('over https', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ PUBLIC_URL: 'https://linkqr.test', TRUST_PROXY: 'loopback' });
    });
    after(() => app.close());

    it('names the session cookie __Host- (Secure, Path=/) once signed in', async () => {
      const owner = await createDashboardUser();
      const proto = { 'x-forwarded-proto': 'https' };
      const form = await requestAs(app.url, '/app/signin', 'linkqr.test', { headers: proto });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
      const cookies = ([] as string[]).concat(form.headers['set-cookie'] ?? []);
      const res = await requestAs(app.url, '/app/signin', 'linkqr.test', {
        method: 'POST',
        headers: {
          ...proto,
          'content-type': 'application/x-www-form-urlencoded',
          cookie: cookies.map((c) => c.split(';')[0]).join('; '),
        },
        body: new URLSearchParams({
          _csrf: csrf,
          email: owner.user.email,
          password: 'correct horse battery',
        }).toString(),
      });
      expect(res.status).to.equal(303);
      const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
      const session = set.find((c) => c.startsWith('__Host-linkqr.sid='));
      expect(session).to.be.a('string');
      expect(session).to.include('Secure');
      expect(session).to.include('Path=/;');
      expect(session).not.to.include('Domain=');
    });
  });
});
