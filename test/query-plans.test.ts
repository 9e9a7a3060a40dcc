import { expect } from 'chai';
import { purgeExpiredVisits } from '../src/visits/visit-retention';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn } from './support/dashboard';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { canExplain, captureQueries, scans, type CapturedQuery } from './support/query-plans';
import { uniqueName } from './support/users';
import { drainVisits } from './support/visits';

/**
 * Every query a request path sends must be answered from an index. On a MongoDB (MONGODB_URI)
 * each captured query is explained and a COLLSCAN fails the test; the embedded engine has no
 * `explain`, so there each query is checked against the indexes the models declare (usesIndex in
 * support/query-plans.ts: the first key of a usable index bounded by the filter).
 */
describe('query plans: no request path scans a collection (issue 22)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function during(work: () => Promise<void>): Promise<CapturedQuery[]> {
    const capture = captureQueries();
    try {
      await work();
    } finally {
      capture.stop();
    }
    return capture.queries;
  }

  it('the API, the dashboard API and the visitor routes', async function () {
    this.timeout(60_000);
    // The report names the check that ran.
    if (this.test) {
      this.test.title += (await canExplain())
        ? ' (by explain)'
        : ' (by declared indexes: the embedded engine has no explain)';
    }
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const queries = await during(async () => {
      const link = await createLink(app, user.apiKey, { url: 'https://example.com/plans' });
      await createLink(app, user.apiKey, { url: 'https://example.com/plans2' });
      await visit(app, `/${link.alias}`);
      await drainVisits(app);
      const slug = uniqueName('plan').replace(/[^a-z0-9-]/gi, '');
      const campaign = await api.post<{ id: number }>('/api/campaign/add', { name: 'c', slug });
      await api.post(`/api/campaign/${campaign.body.id}/assign/${link.id}`);
      const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'plans' });
      const pixel = await api.post<{ id: number }>('/api/pixel/add', {
        type: 'forum',
        name: 'p',
        tag: 'x',
      });
      const channel = await api.post<{ id: number }>('/api/channel/add', { name: 'ch' });
      await api.post(`/api/channel/${channel.body.id}/assign/links/${link.id}`);
      for (const path of [
        '/api/account',
        '/api/urls',
        '/api/urls?order=click',
        '/api/urls?page=2&limit=1',
        `/api/url/${link.id}`,
        `/api/url/${link.id}/stats`,
        '/api/stats',
        '/api/campaigns',
        '/api/channels',
        `/api/channel/${channel.body.id}`,
        '/api/qr',
        `/api/qr/${qr.body.id}`,
        `/api/qr/${qr.body.id}/stats`,
        '/api/pixels',
        '/api/domains',
        '/api/splash',
        '/api/overlay',
        '/api/bio',
        '/api/webhooks',
        '/api/urls/export',
        `/api/url/${link.id}/visits`,
      ]) {
        const res = await api.get(path);
        expect(res.status, `${path}: ${res.text}`).to.be.below(400);
      }
      await api.put(`/api/url/${link.id}/update`, { title: 'renamed' });
      await visit(app, `/r/${slug}`);
      await visit(app, `/r/${slug}`);
      await visit(app, '/no-such-alias');
      const dash = await signedIn(app.url, user);
      await dash.api('GET', `/dashboard/links?q=${link.alias.slice(0, 3)}`);
      await dash.api('GET', '/dashboard/links?sort=clicks');
      await api.delete(`/api/pixel/${pixel.body.id}/delete`);
      await api.delete(`/api/url/${link.id}/delete`);
    });
    expect(queries.length).to.be.greaterThan(20);
    expect(await scans(queries)).to.deep.equal([]);
  });

  it('the retention sweep deletes expired raw visits by an index (C1)', async () => {
    const queries = await during(async () => {
      await purgeExpiredVisits(30);
    });
    expect(await scans(queries)).to.deep.equal([]);
  });
});
