import { expect } from 'chai';
import { BrandedDomain } from '../src/domains/domain.model';
import { domainCacheFor } from '../src/domains/domain-cache';
import { Link } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { fakeResolver, requestWithHost, type FakeRecords } from './support/domains';
import { client } from './support/http';
import { finishedImport, startTestImportWorker, uploadImport } from './support/imports';
import { linkCacheLive } from './support/links';
import { createTestUser, uniqueName } from './support/users';

const HEADER = { format: 'linkqr-export', version: 1, source: 'https://old.example' };

/** A linkqr export of `records` ({type, data} lines), as the importer may have written it. */
function exportOf(records: Array<{ type: string; data: Record<string, unknown> }>): string {
  return [HEADER, ...records].map((l) => JSON.stringify(l)).join('\n');
}

/**
 * A domain in an export is a claim on a host, and an export is a file its importer may have
 * written: what it says of ownership (status, token, verifiedAt) is not proof here. An imported
 * domain is claimed as `POST /api/domain/add` claims one.
 */
describe('portable export: branded domains are claimed anew where imported', function () {
  this.timeout(60_000);
  const zone: Record<string, FakeRecords> = { 'linkqr.test': { a: ['203.0.113.10'] } };
  const { resolver } = fakeResolver(zone);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({ DOMAIN_CHECK: 'dns' }, { domainResolver: resolver });
    await linkCacheLive(app);
    await domainCacheFor(app.deps).whenLive();
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  /** A host pointing here (as a dangling record would), that nobody has claimed. */
  function pointingHere(): string {
    const host = `${uniqueName('im')}.example.test`;
    zone[host] = { a: ['203.0.113.10'] };
    return host;
  }

  it('imports a domain the file calls verified as pending with a token of its own; its links serve once DNS proves it', async () => {
    const { apiKey, user } = await createTestUser();
    const host = pointingHere();
    const alias = uniqueName('dl');
    const forged = 'linkqr-verify=written-by-the-importer';
    const text = exportOf([
      {
        type: 'domain',
        data: {
          id: 7,
          domain: `https://${host}`,
          host,
          status: 'verified',
          verifyToken: forged,
          verifiedAt: '2026-01-01T00:00:00.000Z',
          redirectroot: 'https://example.com/root',
        },
      },
      { type: 'link', data: { id: 1, alias, url: 'https://example.com/on-domain', domainId: 7 } },
    ]);
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    expect(started.status, started.text).to.equal(200);
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report, JSON.stringify(report.errors)).to.deep.include({
      status: 'done',
      total: 2,
      imported: 2,
      failed: 0,
    });
    const domain = await BrandedDomain.findOne({ userId: user.id }).lean();
    expect(domain).to.deep.include({
      host,
      domain: `https://${host}`,
      status: 'pending',
      verifiedAt: null,
      redirectroot: 'https://example.com/root',
    });
    const token = domain?.verifyToken ?? '';
    expect(token)
      .to.match(/^linkqr-verify=[A-Za-z0-9_-]{24}$/)
      .and.not.equal(forged);
    expect(report.errors).to.deep.equal([
      {
        item: 'domain 7',
        message: `imported as domain ${domain?.id}, pending: its links serve once the TXT record _linkqr.${host} holds ${token} (then POST /api/domain/${domain?.id}/verify)`,
      },
    ]);
    const link = await Link.findOne({ userId: user.id, alias }).lean();
    expect(link?.domainId).to.equal(domain?.id);

    // Pending serves nothing, whatever the file said.
    const paused = await requestWithHost(app.url, `/${alias}`, host);
    expect(paused.status).to.equal(503);
    expect(paused.text).to.contain('Links paused on this domain');

    // The forged token proves nothing either; the new one does.
    zone[`_linkqr.${host}`] = { txt: [forged] };
    const api = client(app.url, apiKey);
    const refused = await api.post(`/api/domain/${domain?.id}/verify`, {});
    expect(refused.status, refused.text).to.equal(422);
    expect(refused.body).to.deep.include({ error: 1, field: 'domain' });
    zone[`_linkqr.${host}`] = { txt: [token] };
    const verified = await api.post(`/api/domain/${domain?.id}/verify`, {});
    expect(verified.status, verified.text).to.equal(200);
    const served = await requestWithHost(app.url, `/${alias}`, host);
    expect(served.status).to.equal(302);
    expect(served.location).to.equal('https://example.com/on-domain');

    const rerun = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    expect(await finishedImport(app, apiKey, rerun.body.id)).to.deep.include({
      status: 'done',
      imported: 0,
      skipped: 2,
    });
    expect(await BrandedDomain.countDocuments({ userId: user.id })).to.equal(1);
  });

  it("refuses a domain as domain/add would (not pointing here, another account's host, a bad field), saying why, and drops its links' reference", async () => {
    const owner = await createTestUser();
    const theirs = pointingHere();
    const claimed = await client(app.url, owner.apiKey).post('/api/domain/add', {
      domain: `https://${theirs}`,
    });
    expect(claimed.status, claimed.text).to.equal(200);
    const elsewhere = `${uniqueName('nx')}.example.test`;
    const bad = pointingHere();
    // What the API answers for the host that points elsewhere, word for word.
    const probe = await client(app.url, (await createTestUser()).apiKey).post<{
      message: string;
    }>('/api/domain/add', { domain: `https://${elsewhere}` });
    expect(probe.status, probe.text).to.equal(422);

    const { apiKey, user } = await createTestUser();
    const alias = uniqueName('dr');
    const text = exportOf([
      { type: 'domain', data: { id: 1, domain: `https://${elsewhere}`, status: 'verified' } },
      { type: 'domain', data: { id: 2, domain: `https://${theirs}`, status: 'verified' } },
      {
        type: 'domain',
        data: { id: 3, domain: `https://${bad}`, redirect404: 'javascript:alert(1)' },
      },
      { type: 'link', data: { id: 9, alias, url: 'https://example.com/x', domainId: 2 } },
    ]);
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ status: 'done', imported: 1, skipped: 1, failed: 2 });
    expect(report.errors).to.deep.equal([
      { item: 'domain 1', message: probe.body.message },
      { item: 'domain 2', message: 'domain is already registered: skipped' },
      { item: 'domain 3', message: 'redirect404 must be an http:// or https:// URL' },
      { item: '9', message: 'domain 2 was not imported: its reference dropped' },
    ]);
    expect(await BrandedDomain.countDocuments({ userId: user.id })).to.equal(0);
    expect((await BrandedDomain.findOne({ host: theirs }).lean())?.userId).to.equal(owner.user.id);
    const link = await Link.findOne({ userId: user.id, alias }).lean();
    expect(link?.domainId).to.not.equal(claimed.body.id);
  });
});

describe('portable export: branded domains within the plan', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify([{ id: 1, name: 'onedomain', maxDomains: 1 }]),
    });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  it('imports domains up to maxDomains and fails the rest naming the limit', async () => {
    const { apiKey, user } = await createTestUser({ plan: 'onedomain' });
    const hosts = [1, 2].map(() => `${uniqueName('pl')}.example.test`);
    const text = exportOf(
      hosts.map((host, i) => ({ type: 'domain', data: { id: i + 1, domain: `https://${host}` } })),
    );
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ status: 'done', imported: 1, failed: 1 });
    expect(report.errors).to.deep.equal([
      {
        item: 'domain 2',
        message:
          'Plan limit reached: maxDomains (1) on the onedomain plan; delete a branded domain or change plan',
      },
    ]);
    const made = await BrandedDomain.find({ userId: user.id }).lean();
    expect(made.map((d) => [d.host, d.status])).to.deep.equal([[hosts[0], 'verified']]);
  });
});
