import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client, request } from './support/http';
import { createTestUser } from './support/users';

/** Issue 27, item 5: `GET /` tells a newcomer what this is and where to go. */
describe('the first-run page at the root of the service’s own host', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    // The suite's database has users: the command to create the first one is not offered.
    await createTestUser();
  });
  after(() => app.close());

  for (const host of ['linkqr.test', 'LINKQR.test:8080']) {
    it(`says what linkqr is and links to the dashboard and the docs (Host ${host})`, async () => {
      const res = await requestWithHost(app.url, '/', host);
      expect(res.status).to.equal(200);
      expect(res.contentType).to.match(/^text\/html/);
      expect(res.text).to.include('<h1>linkqr</h1>');
      expect(res.text).to.include('short links and QR codes');
      expect(res.text).to.include('<a href="/app">Dashboard</a>');
      expect(res.text).to.include('<a href="/docs">API documentation</a>');
      expect(res.text).to.include('<code>http://linkqr.test/api</code>');
      expect(res.text).to.not.include('user:create');
    });
  }

  it('answers on the service’s address too (127.0.0.1), with the secure headers of every page', async () => {
    const res = await request(app.url, '/');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
    expect(res.headers.get('content-security-policy')).to.include("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
    const head = await requestWithHost(app.url, '/', 'linkqr.test', 'HEAD');
    expect(head.status).to.equal(200);
  });

  it('leaves a branded domain’s root redirect, and an unknown host’s 404, as they were', async () => {
    const { apiKey } = await createTestUser();
    const domain = uniqueDomain();
    const added = await client(app.url, apiKey).post('/api/domain/add', {
      domain,
      redirectroot: 'https://www.example.com/home',
    });
    expect(added.status, added.text).to.equal(200);
    const branded = await requestWithHost(app.url, '/', new URL(domain).hostname);
    expect(branded.status).to.equal(302);
    expect(branded.location).to.equal('https://www.example.com/home');
    const unknown = await requestWithHost(app.url, '/', 'unclaimed.example.test');
    expect(unknown.status).to.equal(404);
    expect(unknown.text).to.not.include('Dashboard');
  });
});
