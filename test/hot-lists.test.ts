import { expect } from 'chai';
import { createApp } from '../src/app';
import { registeredRoutes } from '../src/openapi/route-walk';
import { createLogger } from '../src/shared/infra/logger';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, request, type ListBody } from './support/http';
import { sample } from './support/metrics';
import { createTestUser } from './support/users';

interface PixelItem {
  id: number;
  type: string;
  name: string;
  tag: string;
  date: string;
}
type PixelList = ListBody<'pixels', PixelItem>;
type Api = ReturnType<typeof client>;

/** The names of an answer's headers: their values (ids, counts, times) differ between answers. */
const headerNames = (headers: Headers) => [...headers.keys()].sort();

describe('hot lists (GET /api/pixels answered ahead of the resource routers)', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: TestApp;
  before(async () => {
    const logger = createLogger('info', 'linkqr-test', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    app = await startTestApp({ CORS_ORIGINS: 'https://tools.example' }, { logger });
  });
  after(() => app.close());

  async function addPixel(api: Api, name: string) {
    const res = await api.post<{ id: number }>('/api/pixel/add', {
      type: 'gtmpixel',
      name,
      tag: 'GTM-AB12CD3',
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.id;
  }

  it('answers the spec envelope byte for byte, newest first', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const first = await addPixel(api, 'first');
    const second = await addPixel(api, 'second');
    const res = await api.get<PixelList>('/api/pixels');
    expect(res.status, res.text).to.equal(200);
    const [newest, oldest] = res.body.data.pixels;
    const item = (id: number, name: string, date: string | undefined) =>
      `{"id":${id},"type":"gtmpixel","name":"${name}","tag":"GTM-AB12CD3","date":"${date}"}`;
    expect(res.text).to.equal(
      '{"error":"0","data":{"result":2,"perpage":15,"currentpage":1,"nextpage":1,' +
        `"maxpage":1,"pixels":[${item(second, 'second', newest?.date)},` +
        `${item(first, 'first', oldest?.date)}]}}`,
    );
  });

  it('carries the headers of a list answered through the whole router stack', async () => {
    const { apiKey } = await createTestUser();
    const origin = { origin: 'https://tools.example', 'x-request-id': 'hot-list-1' };
    const hot = await client(app.url, apiKey).get('/api/pixels', { headers: origin });
    const walked = await client(app.url, apiKey).get('/api/splash', { headers: origin });
    expect(hot.status, hot.text).to.equal(200);
    expect(walked.status, walked.text).to.equal(200);
    expect(headerNames(hot.headers)).to.deep.equal(headerNames(walked.headers));
    // The same values too (the security headers above all), but for what each answer counts.
    const counted = ['date', 'etag', 'content-length', 'ratelimit', 'x-ratelimit-remaining'];
    for (const name of headerNames(hot.headers).filter((n) => !counted.includes(n))) {
      expect(hot.headers.get(name), name).to.equal(walked.headers.get(name));
    }
    for (const name of ['content-security-policy', 'access-control-expose-headers', 'ratelimit']) {
      expect(hot.headers.get(name), name).to.be.a('string');
    }
    expect(hot.headers.get('access-control-allow-origin')).to.equal('https://tools.example');
    expect(hot.headers.get('x-request-id')).to.equal('hot-list-1');
  });

  it("never hands one user's list to another", async () => {
    const apis = await Promise.all(
      ['a', 'b'].map(async () => client(app.url, (await createTestUser()).apiKey)),
    );
    const [a, b] = apis as [Api, Api];
    await addPixel(a, 'only a');
    const names = async (api: Api) =>
      (await api.get<PixelList>('/api/pixels')).body.data.pixels.map((p) => p.name);
    expect(await names(a)).to.deep.equal(['only a']);
    expect(await names(b)).to.deep.equal([]);
    await addPixel(b, 'only b');
    expect(await names(a)).to.deep.equal(['only a']);
    expect(await names(b)).to.deep.equal(['only b']);
  });

  it('refuses like every other route: no key, a key without pixels:read', async () => {
    const anonymous = await request(app.url, '/api/pixels');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('ratelimit')).to.be.a('string');
    const { apiKey } = await createTestUser({ admin: true });
    const narrow = await request<{ key: string }>(app.url, '/api/keys/add', {
      key: apiKey,
      body: { name: 'links only', scopes: ['links:read'] },
    });
    expect(narrow.status, narrow.text).to.equal(200);
    const refused = await request(app.url, '/api/pixels', { key: narrow.body.key });
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.text).to.include('pixels:read');
  });

  it('is counted in the metrics under its route and written to the access log', async () => {
    const { apiKey } = await createTestUser();
    const scrape = async () => (await request(app.url, '/metrics')).text;
    const labels = { method: 'GET', route: '/api/pixels', status: '200' };
    const before = sample(await scrape(), 'linkqr_http_requests_total', labels);
    lines.length = 0;
    await client(app.url, apiKey).get('/api/pixels?page=1', {
      headers: { 'x-request-id': 'hot-list-log' },
    });
    expect(sample(await scrape(), 'linkqr_http_requests_total', labels)).to.equal(before + 1);
    const line = lines.find((l) => l.reqId === 'hot-list-log');
    expect(line).to.include({ method: 'GET', path: '/api/pixels', status: 200 });
  });

  it("counts one lookup of the key's caller per request: a miss, then hits", async () => {
    const { apiKey } = await createTestUser();
    const lookups = async () => {
      const text = (await request(app.url, '/metrics')).text;
      const count = (result: string) =>
        sample(text, 'linkqr_cache_lookups_total', { cache: 'api-keys', result });
      return { hit: count('hit'), miss: count('miss') };
    };
    const before = await lookups();
    for (let i = 0; i < 3; i += 1) {
      expect((await client(app.url, apiKey).get('/api/pixels')).status).to.equal(200);
    }
    expect(await lookups()).to.deep.equal({ hit: before.hit + 2, miss: before.miss + 1 });
  });

  it('appears once in the route table that the OpenAPI document is made from', () => {
    const lists = registeredRoutes(createApp(app.deps)).filter(
      (r) => r.method === 'get' && r.path === '/api/pixels',
    );
    expect(lists).to.have.length(1);
    expect(lists[0]?.doc?.scope).to.equal('pixels:read');
  });
});
