import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, request } from './support/http';
import { createLink, eventually, linkCacheLive, visit } from './support/links';
import { sample } from './support/metrics';
import { createTestUser } from './support/users';

describe('GET /metrics', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const scrape = async () => {
    const res = await request(app.url, '/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    return res.text;
  };

  it('counts requests by route template and status after traffic', async () => {
    const { apiKey } = await createTestUser();
    const labels = { method: 'GET', route: '/api/account', status: '200' };
    const before = sample(await scrape(), 'linkqr_http_requests_total', labels);
    await client(app.url, apiKey).get('/api/account');
    await client(app.url, apiKey).get('/api/account');
    const text = await scrape();
    expect(sample(text, 'linkqr_http_requests_total', labels)).to.equal(before + 2);
    expect(sample(text, 'linkqr_http_request_duration_seconds_count', labels)).to.equal(before + 2);
  });

  it('groups requests refused before routing under /api/*', async () => {
    const labels = { method: 'GET', route: '/api/*', status: '401' };
    const before = sample(await scrape(), 'linkqr_http_requests_total', labels);
    await request(app.url, '/api/account');
    expect(sample(await scrape(), 'linkqr_http_requests_total', labels)).to.equal(before + 1);
  });

  it('counts redirects served and link cache lookups', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/metrics' });
    const text0 = await scrape();
    const redirects = sample(text0, 'linkqr_redirects_total', { kind: 'link' });
    const lookups =
      sample(text0, 'linkqr_cache_lookups_total', { cache: 'links', result: 'hit' }) +
      sample(text0, 'linkqr_cache_lookups_total', { cache: 'links', result: 'miss' });
    expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    const text = await scrape();
    expect(sample(text, 'linkqr_redirects_total', { kind: 'link' })).to.equal(redirects + 1);
    const after =
      sample(text, 'linkqr_cache_lookups_total', { cache: 'links', result: 'hit' }) +
      sample(text, 'linkqr_cache_lookups_total', { cache: 'links', result: 'miss' });
    expect(after).to.be.greaterThan(lookups);
  });

  it('counts redirects the fast path answers, and their link cache hits', async () => {
    await linkCacheLive(app);
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/metrics-fast' });
    expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    const text0 = await scrape();
    const route = { method: 'GET', route: '/:alias', status: '302' };
    const hit = { cache: 'links', result: 'hit' };
    const redirects = sample(text0, 'linkqr_redirects_total', { kind: 'link' });
    const requests = sample(text0, 'linkqr_http_requests_total', route);
    const hits = sample(text0, 'linkqr_cache_lookups_total', hit);
    const timed = sample(text0, 'linkqr_http_request_duration_seconds_count', route);
    for (let i = 0; i < 3; i += 1) {
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    }
    const text = await scrape();
    expect(sample(text, 'linkqr_redirects_total', { kind: 'link' })).to.equal(redirects + 3);
    expect(sample(text, 'linkqr_http_requests_total', route)).to.equal(requests + 3);
    expect(sample(text, 'linkqr_cache_lookups_total', hit)).to.equal(hits + 3);
    expect(sample(text, 'linkqr_http_request_duration_seconds_count', route)).to.equal(timed + 3);
  });

  it('reports the visit backlog, drain lag, QR queue depth and event-loop lag', async () => {
    const text = await scrape();
    for (const name of [
      'linkqr_visit_backlog',
      'linkqr_visit_pending',
      'linkqr_visit_drain_lag_seconds',
      'linkqr_visit_spooled',
      'linkqr_visits_lost_total',
      'linkqr_qr_image_requests_waiting',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text, name).to.match(new RegExp(`^${name} \\d`, 'm'));
    }
    expect(text).to.match(/^linkqr_qr_queue_jobs\{state="waiting"\} \d+$/m);
  });

  it('counts a queued visit in the backlog until a drainer stores it', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/backlog' });
    const before = sample(await scrape(), 'linkqr_visit_backlog');
    await visit(app, `/${link.alias}`);
    // No drainer runs beside this app: the click stays queued once recorded.
    await eventually(
      async () => sample(await scrape(), 'linkqr_visit_backlog') > before,
      'the click is in the backlog',
    );
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ METRICS_TOKEN: token });
  });
  after(() => app.close());

  it('refuses a scrape without the token, or with another one', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer not-the-token-at-all' },
    ];
    for (const headers of attempts) {
      const res = await request(app.url, '/metrics', { headers });
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ error: 1, code: 'unauthorized' });
    }
  });

  it('answers with the token', async () => {
    const res = await request(app.url, '/metrics', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).to.equal(200);
    expect(res.text).to.include('linkqr_http_requests_total');
  });
});
