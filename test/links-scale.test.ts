import { expect } from 'chai';
import { Link } from '../src/links/link.model';
import { MAX_PAGE } from '../src/shared/http/pagination';
import { startTestApp, type TestApp } from './support/app-harness';
import { signedIn } from './support/dashboard';
import { client, type ListBody } from './support/http';
import { createLink, visit } from './support/links';
import { captureQueries, scans } from './support/query-plans';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

interface LinkItem {
  id: number;
  clicks: number;
  title: string;
}
type LinkList = ListBody<'urls', LinkItem>;

describe('link lists that hold at a million links (issue 22, B1, C4, C5)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  /** A user with five links, clicked 0, 3, 1, 2 and 0 times. */
  async function fiveLinks() {
    const user = await createTestUser({ password: 'correct horse battery' });
    const links = [];
    for (const [i, title] of ['Zero', 'Three', 'One', 'Two', 'Café Crème'].entries()) {
      links.push(
        await createLink(app, user.apiKey, { url: `https://example.com/p${i}/page`, title }),
      );
    }
    const clicks = [0, 3, 1, 2, 0];
    for (const [i, n] of clicks.entries()) {
      for (let k = 0; k < n; k += 1) {
        await visit(app, `/${links[i]?.alias}`, { headers: { 'user-agent': CHROME_UA } });
      }
    }
    await drainVisits(app);
    return { user, api: client(app.url, user.apiKey), ids: links.map((l) => l.id), links };
  }

  it('order=click reads one page off the links, never every link id of the user (B1)', async () => {
    const { user, api, ids } = await fiveLinks();
    expect(
      (await Link.find({ userId: user.user.id }).sort({ id: 1 }).lean()).map((l) => l.clicks),
    ).to.deep.equal([0, 3, 1, 2, 0]);
    const capture = captureQueries();
    const res = await api.get<LinkList>('/api/urls?order=click&limit=2&page=2');
    capture.stop();
    expect(res.status).to.equal(200);
    expect(res.body.data.urls.map((l) => [l.id, l.clicks])).to.deep.equal([
      [ids[2], 1],
      [ids[4], 0],
    ]);
    expect(res.body.data).to.deep.include({ result: 5, currentpage: 2, maxpage: 3 });
    // No query names more links than the page holds.
    const inLists = capture.queries.flatMap(
      (q) => JSON.stringify(q.filter).match(/"\$in":\[[^\]]*\]/g) ?? [],
    );
    for (const list of inLists) expect(list.split(',').length, list).to.be.at.most(2);
    const linkFinds = capture.queries.filter(
      (q) => q.collection === 'links' && q.command === 'find',
    );
    expect(linkFinds.map((q) => q.raw.limit)).to.deep.equal([2]);
  });

  it('the dashboard sorts by clicks the same way', async () => {
    const { user, ids } = await fiveLinks();
    const dash = await signedIn(app.url, user);
    const res = await dash.api<LinkList>('GET', '/dashboard/links?sort=clicks&limit=3');
    expect(res.body.data.urls.map((l) => l.id)).to.deep.equal([ids[1], ids[3], ids[2]]);
  });

  it('search matches a prefix of the alias, a URL word or a title word, any case or accent (C4)', async () => {
    const { user, ids, links } = await fiveLinks();
    const dash = await signedIn(app.url, user);
    const found = async (q: string) =>
      (
        await dash.api<LinkList>('GET', `/dashboard/links?q=${encodeURIComponent(q)}`)
      ).body.data.urls.map((l) => l.id);
    expect(await found('creme')).to.deep.equal([ids[4]]);
    expect(await found('CAF')).to.deep.equal([ids[4]]);
    expect(await found('p3')).to.deep.equal([ids[3]]);
    expect(await found((links[2]?.alias ?? '').slice(0, 4).toLowerCase())).to.include(ids[2]);
    expect(await found('example.com/p1')).to.deep.equal([ids[1]]);
    // A prefix, not a substring: the middle of a word matches nothing.
    expect(await found('hree')).to.deep.equal([]);
  });

  it(`refuses a page past ${MAX_PAGE} and lists deeper with after (C5)`, async () => {
    const { api, ids } = await fiveLinks();
    const deep = await api.get(`/api/urls?page=${MAX_PAGE + 1}`);
    expect(deep.status, deep.text).to.equal(400);
    expect(deep.body).to.deep.include({
      error: 1,
      message: `Invalid query: page must be at most ${MAX_PAGE}; list further with after`,
    });
    const next = await api.get<LinkList>(`/api/urls?limit=2&after=${ids[3]}`);
    expect(next.status).to.equal(200);
    expect(next.body.data.urls.map((l) => l.id)).to.deep.equal([ids[2], ids[1]]);
    expect(next.body.data.result).to.equal(5);
  });

  /** Every page of `path` walked with `after` (the last id of each page), as the ids it lists. */
  async function walk(get: (path: string) => Promise<LinkList>, path: string) {
    const seen: number[] = [];
    for (let after: number | undefined; ;) {
      const sep = path.includes('?') ? '&' : '?';
      const body = await get(`${path}${sep}limit=2${after === undefined ? '' : `&after=${after}`}`);
      const ids = body.data.urls.map((l) => l.id);
      if (ids.length === 0) return seen;
      seen.push(...ids);
      after = ids[ids.length - 1];
      expect(seen.length).to.be.at.most(10);
    }
  }

  it('order=click lists deeper with after, off the index and without skip (C5)', async () => {
    const { api, ids } = await fiveLinks();
    const get = async (path: string) => {
      const res = await api.get<LinkList>(path);
      expect(res.status, res.text).to.equal(200);
      return res.body;
    };
    // Most clicked first, ties newest first: the same order as page by page.
    const ranked = [ids[1], ids[3], ids[2], ids[4], ids[0]];
    expect(await walk(get, '/api/urls?order=click')).to.deep.equal(ranked);
    const capture = captureQueries();
    const next = await get(`/api/urls?order=click&limit=2&after=${ids[3]}`);
    capture.stop();
    expect(next.data.urls.map((l) => l.id)).to.deep.equal([ids[2], ids[4]]);
    expect(next.data.result).to.equal(5);
    const page = capture.queries.find((q) => q.collection === 'links' && q.raw.sort !== undefined);
    expect(page?.raw.skip ?? 0).to.equal(0);
    expect(await scans(capture.queries)).to.deep.equal([]);
  });

  it('after naming none of your links answers 422 in order=click', async () => {
    const { api } = await fiveLinks();
    const other = await fiveLinks();
    for (const after of [999_999_999, other.ids[0]]) {
      const res = await api.get(`/api/urls?order=click&after=${after}`);
      expect(res.status, res.text).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        code: 'validation_failed',
        message: `after: you have no link ${after}; list again without after`,
      });
    }
    const bad = await api.get('/api/urls?after=0');
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body).to.include({ error: 1 });
  });

  it('the dashboard lists deeper with after in both orders and within a search', async () => {
    const { user, ids } = await fiveLinks();
    const dash = await signedIn(app.url, user);
    const get = async (path: string) => {
      const res = await dash.api<LinkList>('GET', path);
      expect(res.status, res.text).to.equal(200);
      return res.body;
    };
    expect(await walk(get, '/dashboard/links?sort=clicks')).to.deep.equal([
      ids[1],
      ids[3],
      ids[2],
      ids[4],
      ids[0],
    ]);
    expect(await walk(get, '/dashboard/links')).to.deep.equal([...ids].reverse());
    // Every link's URL starts with example.com/p: the search and the keyset together.
    expect(await walk(get, '/dashboard/links?q=example.com%2Fp')).to.deep.equal([...ids].reverse());
  });

  it('every other list of records offers after too (QR codes, campaigns, pixels: cached lists)', async () => {
    const { api } = await fiveLinks();
    const made: Record<string, number[]> = { qrs: [], campaigns: [], pixels: [] };
    for (let i = 0; i < 3; i += 1) {
      made.qrs?.push(
        (await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: `q${i}` })).body.id,
      );
      made.campaigns?.push(
        (await api.post<{ id: number }>('/api/campaign/add', { name: `c${i}` })).body.id,
      );
      made.pixels?.push(
        (
          await api.post<{ id: number }>('/api/pixel/add', {
            type: 'forum',
            name: `p${i}`,
            tag: 'x',
          })
        ).body.id,
      );
    }
    for (const [path, key] of [
      ['/api/qr', 'qrs'],
      ['/api/campaigns', 'campaigns'],
      ['/api/pixels', 'pixels'],
    ] as const) {
      const newest = [...(made[key] ?? [])].reverse();
      // Warm the cached first page: `after` must not be answered from it.
      await api.get(`${path}?limit=2`);
      const res = await api.get<Record<string, unknown>>(`${path}?limit=2&after=${newest[0]}`);
      expect(res.status, res.text).to.equal(200);
      const data = res.body.data as Record<string, Array<{ id: number }>>;
      expect(
        (data[key] ?? []).map((r) => r.id),
        path,
      ).to.deep.equal(newest.slice(1, 3));
    }
  });
});
