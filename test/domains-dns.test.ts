import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { fakeResolver, uniqueDomain, type FakeRecords } from './support/domains';
import { client } from './support/http';
import { createTestUser } from './support/users';

/**
 * DOMAIN_CHECK=dns with a fake zone: the service is PUBLIC_URL http://linkqr.test (203.0.113.10,
 * 2001:db8::10), and DOMAIN_TARGETS adds the edge name edge.linkqr.net and the address 198.51.100.20.
 */
describe('branded domains: the DNS check', () => {
  const serviceZone: Record<string, FakeRecords> = {
    'linkqr.test': { a: ['203.0.113.10'], aaaa: ['2001:db8::10'] },
    'edge.linkqr.net': { a: ['198.51.100.30'] },
  };
  const guidance =
    'create a CNAME record pointing to linkqr.test or an A/AAAA record pointing to 198.51.100.20, 203.0.113.10, 2001:db8::10, 198.51.100.30';

  async function attempt(records: FakeRecords | undefined) {
    const domain = uniqueDomain();
    const host = new URL(domain).hostname;
    const zone = { ...serviceZone, ...(records ? { [host]: records } : {}) };
    const { resolver, queries } = fakeResolver(zone);
    const app: TestApp = await startTestApp(
      { DOMAIN_CHECK: 'dns', DOMAIN_TARGETS: 'edge.linkqr.net, 198.51.100.20' },
      { domainResolver: resolver },
    );
    try {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post('/api/domain/add', { domain });
      const list = await client(app.url, apiKey).get<{ data: { result: number } }>('/api/domains');
      return { res, host, queries, stored: list.body.data.result };
    } finally {
      await app.close();
    }
  }

  const accepted: Array<[string, FakeRecords]> = [
    ['a CNAME to the PUBLIC_URL host', { cname: ['linkqr.test'], a: ['203.0.113.10'] }],
    ['a CNAME written with a trailing dot and capitals', { cname: ['LinkQR.test.'] }],
    ['a CNAME to a DOMAIN_TARGETS name', { cname: ['edge.linkqr.net'] }],
    ['an A record holding the PUBLIC_URL host address', { a: ['203.0.113.10'] }],
    ['an AAAA record holding the PUBLIC_URL host address', { aaaa: ['2001:db8:0:0:0:0:0:10'] }],
    ['an A record holding a DOMAIN_TARGETS address', { a: ['198.51.100.20'] }],
    ['an A record holding the address of a DOMAIN_TARGETS name', { a: ['198.51.100.30'] }],
  ];
  for (const [label, records] of accepted) {
    it(`accepts a domain with ${label}`, async () => {
      const { res, host, queries, stored } = await attempt(records);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, id: res.body.id });
      expect(stored).to.equal(1);
      expect(queries).to.include(`a ${host}`);
    });
  }

  it('answers 422 naming the records needed when the domain resolves elsewhere', async () => {
    const { res, host, stored } = await attempt({ a: ['192.0.2.99'] });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({
      error: 1,
      message: `${host} does not point to this service (its records name other hosts or addresses): ${guidance}`,
    });
    expect(stored).to.equal(0);
  });

  it('answers 422 when the CNAME names another host', async () => {
    const { res, host } = await attempt({ cname: ['elsewhere.example'] });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({
      error: 1,
      message: `${host} does not point to this service (its records name other hosts or addresses): ${guidance}`,
    });
  });

  it('never shows the records it found: internal names and addresses stay unsaid (issue 29, L1)', async () => {
    const { res, host } = await attempt({ a: ['10.20.30.40'], cname: ['db.internal.corp'] });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({
      error: 1,
      message: `${host} does not point to this service (its records name other hosts or addresses): ${guidance}`,
    });
    expect(res.text).not.to.include('10.20.30.40');
    expect(res.text).not.to.include('internal.corp');
  });

  it('answers 422 with the same guidance when the name does not resolve (ENOTFOUND)', async () => {
    const { res, host, stored } = await attempt(undefined);
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({
      error: 1,
      message: `${host} does not point to this service (no A, AAAA or CNAME record found: ENOTFOUND): ${guidance}`,
    });
    expect(stored).to.equal(0);
  });

  it('checks uniqueness before DNS: a taken domain is 409 without any lookup of it', async () => {
    const domain = uniqueDomain();
    const host = new URL(domain).hostname;
    const { resolver, queries } = fakeResolver({ ...serviceZone, [host]: { a: ['203.0.113.10'] } });
    const app = await startTestApp({ DOMAIN_CHECK: 'dns' }, { domainResolver: resolver });
    try {
      const first = await createTestUser();
      const second = await createTestUser();
      expect(
        (await client(app.url, first.apiKey).post('/api/domain/add', { domain })).status,
      ).to.equal(200);
      queries.length = 0;
      const res = await client(app.url, second.apiKey).post('/api/domain/add', { domain });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: 'domain is already registered' });
      expect(queries).to.deep.equal([]);
    } finally {
      await app.close();
    }
  });
});
