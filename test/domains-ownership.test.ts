import { expect } from 'chai';
import { domainCacheFor } from '../src/domains/domain-cache';
import { BrandedDomain } from '../src/domains/domain.model';
import { recheckDomains, LEGACY_GRACE_MS } from '../src/domains/domain-verification.service';
import { createLogger } from '../src/shared/infra/logger';
import type { WebhookEvents } from '../src/webhooks/webhooks.jobs';
import { startTestApp, type TestApp } from './support/app-harness';
import { fakeResolver, requestWithHost, uniqueDomain, type FakeRecords } from './support/domains';
import { client } from './support/http';
import { linkCacheLive } from './support/links';
import { createTestUser } from './support/users';

interface Verification {
  status: string;
  record: { type: string; name: string; value: string | null };
  verifiedAt: string | null;
  checkedAt: string | null;
  suspendedAt: string | null;
}
interface DomainItem {
  id: number;
  domain: string;
  redirectroot: string | null;
  redirect404: string | null;
  verification: Verification;
}

/**
 * Issue 29, M6: a branded domain is claimed by proving control of its DNS (a TXT record
 * `_linkqr.<host>` holding the claim's token), checked again by the worker; a domain whose record
 * is gone is suspended. All DNS here is a fake zone (no real lookups).
 */
describe('branded domains: ownership by TXT record (issue 29, M6)', () => {
  const zone: Record<string, FakeRecords> = {
    'linkqr.test': { a: ['203.0.113.10'] },
  };
  const { resolver } = fakeResolver(zone);
  const emitted: Array<{ userId: number; event: string; data: unknown }> = [];
  const events: WebhookEvents = {
    emit: async (userId, event, data) => {
      emitted.push({ userId, event, data });
    },
    subscribed: async () => true,
    close: async () => undefined,
  };
  const logger = createLogger('silent');
  let app: TestApp;
  before(async () => {
    app = await startTestApp(
      { DOMAIN_CHECK: 'dns' },
      { domainResolver: resolver, webhooks: events },
    );
    await linkCacheLive(app);
    await domainCacheFor(app.deps).whenLive();
  });
  after(() => app.close());
  beforeEach(() => {
    emitted.length = 0;
  });

  const sweep = (now = new Date()) =>
    recheckDomains(
      {
        resolver,
        domainCheck: 'dns',
        recheckMs: 60_000,
        hosts: domainCacheFor(app.deps),
        events,
        logger,
      },
      now,
    );

  /** A domain pointing here (a dangling A record would do as well), claimed by a new user. */
  async function claim() {
    const user = await createTestUser();
    const domain = uniqueDomain();
    const host = new URL(domain).hostname;
    zone[host] = { a: ['203.0.113.10'] };
    const api = client(app.url, user.apiKey);
    const added = await api.post<{ id: number }>('/api/domain/add', { domain });
    expect(added.status, added.text).to.equal(200);
    const list = await api.get<{ data: { domains: DomainItem[] } }>('/api/domains');
    const item = list.body.data.domains.find((d) => d.id === added.body.id);
    if (!item) throw new Error('the new domain is not listed');
    return { user, api, domain, host, id: added.body.id, item };
  }

  const publish = (host: string, value: string | null) => {
    zone[`_linkqr.${host}`] = { txt: value ? ['v=spf1 -all', value] : [] };
  };

  it('lists a new claim as pending with the TXT record to create, the spec fields unchanged', async () => {
    const { item, domain, host } = await claim();
    expect(item).to.deep.include({ domain, redirectroot: null, redirect404: null });
    expect(item.verification.status).to.equal('pending');
    expect(item.verification.record.type).to.equal('TXT');
    expect(item.verification.record.name).to.equal(`_linkqr.${host}`);
    expect(item.verification.record.value).to.match(/^linkqr-verify=[A-Za-z0-9_-]{24}$/);
    expect(item.verification.verifiedAt).to.equal(null);
  });

  it('serves nothing on a pending domain: a page says the links are paused', async () => {
    const { api, domain, host } = await claim();
    const created = await api.post<{ shorturl: string }>('/api/url/add', {
      url: 'https://example.com/pending',
      domain,
    });
    expect(created.status, created.text).to.equal(200);
    const alias = new URL(created.body.shorturl).pathname;
    const res = await requestWithHost(app.url, alias, host);
    expect(res.status).to.equal(503);
    expect(res.location).to.equal(undefined);
    expect(res.text).to.contain('Links paused on this domain');
    expect(res.text).to.contain('has not yet proven');
    expect((await requestWithHost(app.url, '/', host)).status).to.equal(503);
  });

  it('verifies a claim whose TXT record holds its token, and the domain serves', async () => {
    const { api, domain, host, id, item, user } = await claim();
    const created = await api.post<{ shorturl: string }>('/api/url/add', {
      url: 'https://example.com/verified',
      domain,
    });
    const alias = new URL(created.body.shorturl).pathname;
    expect((await requestWithHost(app.url, alias, host)).status).to.equal(503);
    publish(host, item.verification.record.value);
    const res = await api.post<{ error: number; message: string; verification: Verification }>(
      `/api/domain/${id}/verify`,
      {},
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.error).to.equal(0);
    expect(res.body.verification.status).to.equal('verified');
    expect(res.body.verification.verifiedAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const visit = await requestWithHost(app.url, alias, host);
    expect(visit.status).to.equal(302);
    expect(visit.location).to.equal('https://example.com/verified');
    expect(
      emitted.filter((e) => e.event.startsWith('domain.')).map((e) => [e.userId, e.event]),
    ).to.deep.equal([[user.user.id, 'domain.verified']]);
  });

  it('refuses (422) a claim whose TXT record is missing or holds another claim’s token', async () => {
    const victim = await claim();
    publish(victim.host, victim.item.verification.record.value);
    expect((await victim.api.post(`/api/domain/${victim.id}/verify`, {})).status).to.equal(200);

    // Someone else claims a host that points here but whose TXT record is not theirs.
    const attacker = await claim();
    publish(attacker.host, victim.item.verification.record.value);
    const res = await attacker.api.post(`/api/domain/${attacker.id}/verify`, {});
    expect(res.status).to.equal(422);
    const token = attacker.item.verification.record.value;
    expect(res.body).to.deep.equal({
      error: 1,
      message: `The ownership record of ${attacker.host} was not checked true (not found): create a TXT record named _linkqr.${attacker.host} with the value ${token}, then verify again`,
      code: 'validation_failed',
      field: 'domain',
    });
    delete zone[`_linkqr.${attacker.host}`];
    const gone = await attacker.api.post(`/api/domain/${attacker.id}/verify`, {});
    expect(gone.status).to.equal(422);
    expect(gone.body.message).to.contain('(not found)');
  });

  it("answers 404 for another user's domain, and 422 when DNS does not answer", async () => {
    const mine = await claim();
    const theirs = await claim();
    const res = await mine.api.post(`/api/domain/${theirs.id}/verify`, {});
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ error: 1, message: 'Domain not found' });
    zone[`_linkqr.${mine.host}`] = { fail: 'ETIMEOUT' };
    const timeout = await mine.api.post(`/api/domain/${mine.id}/verify`, {});
    expect(timeout.status).to.equal(422);
    expect(timeout.body.message).to.contain('(DNS did not answer)');
  });

  it('suspends a verified domain whose record is gone at the next check: page, webhook, dashboard state', async () => {
    const { api, domain, host, id, item, user } = await claim();
    const created = await api.post<{ shorturl: string }>('/api/url/add', {
      url: 'https://example.com/suspend-me',
      domain,
    });
    const alias = new URL(created.body.shorturl).pathname;
    publish(host, item.verification.record.value);
    expect((await api.post(`/api/domain/${id}/verify`, {})).status).to.equal(200);
    // Twice: the second answer comes from the redirect fast path's cache.
    expect((await requestWithHost(app.url, alias, host)).status).to.equal(302);
    expect((await requestWithHost(app.url, alias, host)).status).to.equal(302);
    emitted.length = 0;

    delete zone[`_linkqr.${host}`];
    // Past the app's re-check interval (DOMAIN_RECHECK_MS, 6 h) from the verification.
    const later = new Date(Date.now() + 7 * 3_600_000);
    const result = await sweep(later);
    expect(result.suspended).to.be.at.least(1);
    const visit = await requestWithHost(app.url, alias, host);
    expect(visit.status).to.equal(503);
    expect(visit.location).to.equal(undefined);
    expect(visit.text).to.contain('was not found at its last check');
    const suspended = emitted.filter(
      (e) => e.userId === user.user.id && e.event.startsWith('domain.'),
    );
    expect(suspended.map((e) => e.event)).to.deep.equal(['domain.suspended']);
    expect(suspended[0]?.data).to.deep.include({ id, domain, reason: 'record missing' });
    const list = await api.get<{ data: { domains: DomainItem[] } }>('/api/domains');
    const shown = list.body.data.domains.find((d) => d.id === id);
    expect(shown?.verification.status).to.equal('suspended');
    expect(shown?.verification.suspendedAt).to.be.a('string');

    // The record is back: the next check serves the domain again.
    publish(host, item.verification.record.value);
    await sweep(new Date(later.getTime() + 120_000));
    expect((await requestWithHost(app.url, alias, host)).status).to.equal(302);
    const told = emitted.filter((e) => e.userId === user.user.id && e.event.startsWith('domain.'));
    expect(told.map((e) => e.event)).to.deep.equal(['domain.suspended', 'domain.verified']);
  });

  it('never suspends on a DNS failure (time-out, SERVFAIL)', async () => {
    const { api, host, id, item } = await claim();
    publish(host, item.verification.record.value);
    expect((await api.post(`/api/domain/${id}/verify`, {})).status).to.equal(200);
    zone[`_linkqr.${host}`] = { fail: 'ESERVFAIL' };
    await sweep(new Date(Date.now() + 7 * 3_600_000));
    const doc = await BrandedDomain.findOne({ id }).lean();
    expect(doc?.status).to.equal('verified');
  });

  it('gives a domain claimed before ownership tokens a token and a grace period before suspending it', async () => {
    const { id, host } = await claim();
    // As stored before this change: no status, token or schedule.
    await BrandedDomain.updateOne(
      { id },
      { $set: { status: null, verifyToken: null, nextCheckAt: null, verifiedAt: null } },
    );
    const now = new Date(Date.now() + 120_000);
    await sweep(now);
    const doc = await BrandedDomain.findOne({ id }).lean();
    expect(doc?.status).to.equal('verified');
    expect(doc?.verifyToken).to.match(/^linkqr-verify=/);
    expect(doc?.graceUntil?.getTime()).to.equal(now.getTime() + LEGACY_GRACE_MS);
    expect(zone[`_linkqr.${host}`]).to.equal(undefined);
    await sweep(new Date(now.getTime() + LEGACY_GRACE_MS - 60_000));
    expect((await BrandedDomain.findOne({ id }).lean())?.status).to.equal('verified');
    await sweep(new Date(now.getTime() + LEGACY_GRACE_MS + 60_000));
    expect((await BrandedDomain.findOne({ id }).lean())?.status).to.equal('suspended');
  });

  it('lets another account claim a host whose pending claim was never proven after three days', async () => {
    const squatter = await claim();
    const owner = await createTestUser();
    const api = client(app.url, owner.apiKey);
    expect((await api.post('/api/domain/add', { domain: squatter.domain })).status).to.equal(409);
    await BrandedDomain.updateOne(
      { id: squatter.id },
      { $set: { createdAt: new Date(Date.now() - 4 * 86_400_000) } },
    );
    const res = await api.post<{ id: number }>('/api/domain/add', { domain: squatter.domain });
    expect(res.status, res.text).to.equal(200);
    expect(await BrandedDomain.exists({ id: squatter.id })).to.equal(null);
  });
});
