import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};
const A = 'https://example.com/landing-a';
const B = 'https://example.com/landing-b';
const SPLIT = [
  { url: A, weight: 70 },
  { url: B, weight: 30 },
];

interface Details {
  details: { clicks: number; variants: Array<{ url: string; weight: number; clicks: number }> };
}

describe('A/B variants (issue 24)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await linkCacheLive(app);
  });
  after(() => app.close());

  async function splitLink(extra: Record<string, unknown> = {}) {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/',
      variants: SPLIT,
      ...extra,
    });
    return { apiKey, link };
  }

  it('splits 2,000 new visitors within 5 points of the weights', async () => {
    const { link } = await splitLink();
    const counts = new Map<string, number>();
    for (let batch = 0; batch < 40; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => visit(app, `/${link.alias}`, { headers: BROWSER })),
      );
      for (const res of answers) {
        expect(res.status).to.equal(302);
        const location = res.headers.get('location') ?? '';
        counts.set(location, (counts.get(location) ?? 0) + 1);
      }
    }
    expect([...counts.keys()].sort()).to.deep.equal([A, B]);
    const shareA = (100 * (counts.get(A) ?? 0)) / 2000;
    expect(shareA).to.be.within(65, 75);
  });

  it('keeps a returning visitor on its variant through the 30-day cookie', async () => {
    const { link } = await splitLink();
    const first = await visit(app, `/${link.alias}`, { headers: BROWSER });
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).to.match(
      /^lqv\d+=[0-9a-f]{10}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const mine = first.headers.get('location');
    const jar = cookie.split(';')[0] as string;
    for (let i = 0; i < 20; i += 1) {
      const again = await visit(app, `/${link.alias}`, { headers: { ...BROWSER, cookie: jar } });
      expect(again.headers.get('location')).to.equal(mine);
      expect(again.headers.get('set-cookie')).to.equal(null);
    }
  });

  it('tries the rules first: a matching rule wins and assigns no variant', async () => {
    const { link } = await splitLink({
      rules: [{ url: 'https://example.com/news', when: { query: { utm_source: 'newsletter' } } }],
    });
    const res = await visit(app, `/${link.alias}?utm_source=newsletter`, { headers: BROWSER });
    expect(res.headers.get('location')).to.equal('https://example.com/news');
    expect(res.headers.get('set-cookie')).to.equal(null);
  });

  it('counts clicks per variant: details and ?by=variant add up to the link clicks', async () => {
    const { apiKey, link } = await splitLink();
    for (let i = 0; i < 30; i += 1) await visit(app, `/${link.alias}`, { headers: BROWSER });
    await drainVisits(app);
    const api = client(app.url, apiKey);
    const details = await api.get<Details>(`/api/url/${link.id}`);
    expect(details.status).to.equal(200);
    const { clicks, variants } = details.body.details;
    expect(clicks).to.equal(30);
    expect(variants.map((v) => [v.url, v.weight])).to.deep.equal([
      [A, 70],
      [B, 30],
    ]);
    expect(variants.reduce((sum, v) => sum + v.clicks, 0)).to.equal(30);
    const stats = await api.get<{ data: { by: string; top: Record<string, string> } }>(
      `/api/url/${link.id}/stats?by=variant`,
    );
    expect(stats.status, stats.text).to.equal(200);
    expect(stats.body.data.by).to.equal('variant');
    const top = stats.body.data.top;
    for (const v of variants) expect(Number(top[v.url] ?? 0)).to.equal(v.clicks);
  });

  it('refuses weights that do not add up to 100, or a single variant, with 422', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const uneven = await api.post('/api/url/add', {
      url: 'https://example.com/',
      variants: [
        { url: A, weight: 60 },
        { url: B, weight: 30 },
      ],
    });
    expect(uneven.status).to.equal(422);
    expect(uneven.body).to.deep.include({
      error: 1,
      message: 'variants weights must add up to 100',
    });
    const single = await api.post('/api/url/add', {
      url: 'https://example.com/',
      variants: [{ url: A, weight: 100 }],
    });
    expect(single.status).to.equal(422);
    expect(single.body).to.deep.include({
      error: 1,
      message: 'variants must contain at least 2 items',
    });
  });
});
