import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { uniqueDomain } from './support/domains';
import { client, request } from './support/http';
import { createTestUser, uniqueName } from './support/users';

const PLANS = [
  { id: 1, name: 'tiny', rateLimit: 100_000, maxLinks: 2, maxQrCodes: 1, maxDomains: 1 },
  { id: 2, name: 'roomy', rateLimit: 100_000 },
  { id: 3, name: 'capped', rateLimit: 4 },
];

describe('plan limits from PLANS', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify(PLANS),
      REDIS_PREFIX: `${uniqueName('pl')}:`,
    });
  });
  after(() => app.close());

  const cases = [
    {
      what: 'links',
      limit: 'maxLinks (2) on the tiny plan; delete a link',
      max: 2,
      create: (api: ReturnType<typeof client>) =>
        api.post<{ id: number }>('/api/url/add', { url: 'https://example.com/' }),
      remove: (api: ReturnType<typeof client>, id: number) => api.delete(`/api/url/${id}/delete`),
    },
    {
      what: 'QR codes',
      limit: 'maxQrCodes (1) on the tiny plan; delete a QR code',
      max: 1,
      create: (api: ReturnType<typeof client>) =>
        api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'x' }),
      remove: (api: ReturnType<typeof client>, id: number) => api.delete(`/api/qr/${id}/delete`),
    },
    {
      what: 'branded domains',
      limit: 'maxDomains (1) on the tiny plan; delete a branded domain',
      max: 1,
      create: (api: ReturnType<typeof client>) =>
        api.post<{ id: number }>('/api/domain/add', { domain: uniqueDomain() }),
      remove: (api: ReturnType<typeof client>, id: number) =>
        api.delete(`/api/domain/${id}/delete`),
    },
  ];

  for (const { what, limit, max, create, remove } of cases) {
    it(`answers 403 naming the limit past ${max} ${what}, and creates again after a delete`, async () => {
      const { apiKey } = await createTestUser({ plan: 'tiny' });
      const api = client(app.url, apiKey);
      const ids: number[] = [];
      for (let i = 0; i < max; i += 1) {
        const res = await create(api);
        expect(res.status, res.text).to.equal(200);
        ids.push(res.body.id);
      }
      const refused = await create(api);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({
        error: 1,
        message: `Plan limit reached: ${limit} or change plan`,
      });
      expect((await remove(api, ids[0]!)).status).to.equal(200);
      const again = await create(api);
      expect(again.status, again.text).to.equal(200);
    });
  }

  it("counts only the caller's own records", async () => {
    const other = await createTestUser({ plan: 'tiny' });
    for (let i = 0; i < 2; i += 1) {
      await client(app.url, other.apiKey).post('/api/url/add', { url: 'https://example.com/' });
    }
    const { apiKey } = await createTestUser({ plan: 'tiny' });
    const res = await client(app.url, apiKey).post('/api/url/add', { url: 'https://example.com/' });
    expect(res.status, res.text).to.equal(200);
  });

  it('leaves plans without a limit, and users on no configured plan, unlimited', async () => {
    for (const plan of ['roomy', 'test']) {
      const { apiKey } = await createTestUser({ plan });
      for (let i = 0; i < 3; i += 1) {
        const res = await client(app.url, apiKey).post('/api/url/add', {
          url: 'https://example.com/',
        });
        expect(res.status, `${plan}: ${res.text}`).to.equal(200);
      }
    }
  });

  it("applies a plan's rateLimit to its users", async () => {
    const { apiKey } = await createTestUser({ plan: 'capped' });
    const first = await request(app.url, '/api/account', { key: apiKey });
    expect(first.headers.get('x-ratelimit-limit')).to.equal('4');
  });
});
