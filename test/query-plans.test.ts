import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { purgeExpiredVisits } from '../src/visits/visit-retention';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn } from './support/dashboard';
import { addOverlay } from './support/behaviour';
import { createBio } from './support/bio';
import { client, request } from './support/http';
import { finishedImport, startTestImportWorker, uploadImport } from './support/imports';
import { imagePath, startQrWorker, waitForRender } from './support/qr';
import { createLink, eventually, visit } from './support/links';
import {
  canExplain,
  captureQueries,
  scans,
  undocumentedIndexes,
  type CapturedQuery,
} from './support/query-plans';
import { uniqueName } from './support/users';
import { drainVisits } from './support/visits';

/**
 * Every query a request path sends must be answered from an index. On a MongoDB (MONGODB_URI)
 * each captured query is explained and a COLLSCAN fails the test; the embedded engine has no
 * `explain`, so there each query is checked against the indexes the models declare (usesIndex in
 * support/query-plans.ts: the first key of a usable index bounded by the filter).
 */
/** docs/scaling.md's "Query plans" section, which names every index the tours below use. */
function plansSection(): string {
  const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'scaling.md'), 'utf8');
  const start = doc.indexOf('### Query plans');
  return doc.slice(start, doc.indexOf('\n### ', start + 1));
}

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
      // A click with labels, so the drain's rollups write every statistics collection.
      await visit(app, `/${link.alias}`, {
        headers: {
          'user-agent':
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
          referer: 'https://news.example/story',
        },
      });
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
      // The audit log, and a page after an entry (entries are stored a moment after the write).
      let entries: Array<{ id: string }> = [];
      await eventually(async () => {
        const res = await api.get<{ data: { entries: Array<{ id: string }> } }>('/api/audit');
        entries = res.body.data.entries;
        return entries.length > 1;
      }, 'audit entries');
      const deeper = await api.get(`/api/audit?limit=1&type=link&after=${entries[0]?.id}`);
      expect(deeper.status, deeper.text).to.equal(200);
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
    expect(
      undocumentedIndexes(queries, plansSection()),
      'missing from docs/scaling.md',
    ).to.deep.equal([]);
  });

  it('the public QR image, bio page, contact overlay, imports and bulk routes', async function () {
    this.timeout(90_000);
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const renderer = startQrWorker(app);
    const importer = startTestImportWorker(app);
    try {
      const queries = await during(async () => {
        // The public QR image: rendered by the worker, then served by alias in each format.
        const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'tour' });
        expect(qr.status, qr.text).to.equal(200);
        const details = await waitForRender(app, user.apiKey, qr.body.id, 30_000);
        expect(details.status).to.equal('ready');
        for (const format of ['png', 'svg']) {
          const image = await request(app.url, `${imagePath(details.link)}.${format}`);
          expect(image.status, `${format}: ${image.text}`).to.equal(200);
        }
        expect((await request(app.url, '/qr/no-such-code.png')).status).to.equal(404);
        const qr2 = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'tour2' });
        await waitForRender(app, user.apiKey, qr2.body.id, 30_000);
        const zip = await api.get(`/api/qr/download?ids=${qr.body.id},${qr2.body.id}`);
        expect(zip.status, zip.text).to.be.below(400);
        const bulkQr = await api.post('/api/qr/bulk', { qrs: [{ type: 'text', data: 'b1' }] });
        expect(bulkQr.status, bulkQr.text).to.equal(200);

        // The public bio page, by alias.
        const bio = await createBio(app, user.apiKey, { name: 'Tour', links: [] });
        expect((await visit(app, `/b/${bio.alias}`)).status).to.equal(200);
        expect((await visit(app, '/b/no-such-bio')).status).to.equal(404);
        await api.get(`/api/bio?after=${bio.id}`);

        // A contact overlay: its page, a message sent through it, the owner's list of them.
        const overlay = await addOverlay(app, user.apiKey, { type: 'contact', message: 'Hi' });
        const link = await createLink(app, user.apiKey, {
          url: 'https://example.com/contact',
          type: `overlay-${overlay}`,
        });
        const page = await visit(app, `/${link.alias}`);
        const token = /name="token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
        const sent = await request(app.url, `/${link.alias}/contact`, {
          method: 'POST',
          rawBody: new URLSearchParams({
            token,
            name: 'Ann',
            email: 'ann@example.com',
            message: 'Call me',
          }).toString(),
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
        });
        expect(sent.status, sent.text).to.equal(200);
        for (const path of [
          '/api/overlay',
          `/api/overlay/${overlay}/responses`,
          `/api/overlay/${overlay}/responses?after=999999999`,
        ]) {
          const res = await api.get(path);
          expect(res.status, `${path}: ${res.text}`).to.equal(200);
        }
        await api.put(`/api/overlay/${overlay}/update`, { name: 'renamed' });

        // Bulk links: create, update, delete.
        const made = await api.post<{ data: Array<{ id: number }> }>('/api/urls/bulk', {
          urls: [{ url: 'https://example.com/b1' }, { url: 'https://example.com/b2' }],
        });
        expect(made.status, made.text).to.equal(200);
        const ids = made.body.data.map((r) => r.id);
        const updated = await api.put('/api/urls/bulk', {
          urls: ids.map((id) => ({ id, title: 'bulk' })),
        });
        expect(updated.status, updated.text).to.equal(200);
        const removed = await request(app.url, '/api/urls/bulk', {
          method: 'DELETE',
          key: user.apiKey,
          body: { ids },
        });
        expect(removed.status, removed.text).to.equal(200);

        // An import: the upload, the worker's run, the report and the list.
        const started = await uploadImport(
          app,
          user.apiKey,
          `keyword,url\n${uniqueName('imp')},https://example.com/imported\n`,
        );
        expect(started.status, started.text).to.equal(200);
        const report = await finishedImport(app, user.apiKey, started.body.id);
        expect(report.status).to.equal('done');
        expect((await api.get('/api/imports')).status).to.equal(200);
        await api.delete(`/api/overlay/${overlay}/delete`);
      });
      expect(queries.length).to.be.greaterThan(20);
      expect(await scans(queries)).to.deep.equal([]);
      expect(
        undocumentedIndexes(queries, plansSection()),
        'missing from docs/scaling.md',
      ).to.deep.equal([]);
      expect(
        undocumentedIndexes(queries, plansSection()),
        'missing from docs/scaling.md',
      ).to.deep.equal([]);
    } finally {
      await importer.close();
      await renderer.close();
    }
  });

  it('the retention sweep deletes expired raw visits by an index (C1)', async () => {
    const queries = await during(async () => {
      await purgeExpiredVisits(30);
    });
    expect(await scans(queries)).to.deep.equal([]);
    expect(
      undocumentedIndexes(queries, plansSection()),
      'missing from docs/scaling.md',
    ).to.deep.equal([]);
  });
});
