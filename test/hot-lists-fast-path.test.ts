import { expect } from 'chai';
import { createLogger } from '../src/shared/infra/logger';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, request, type ListBody, type TestResponse } from './support/http';
import { eventually } from './support/links';
import { sample } from './support/metrics';
import { createTestUser, type TestUser } from './support/users';

type PixelList = ListBody<'pixels', { id: number; name: string }>;
type Answered = 'express' | 'fast path';

const ALLOWED = 'https://tools.example';

/** Headers whose values belong to one answer: when, which request, how much of the window is left. */
const PER_REQUEST = ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** An answer's headers with the per-request values set aside (`RateLimit` keeps its shape). */
function comparable(res: TestResponse<unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of res.headers) {
    if (PER_REQUEST.includes(name)) continue;
    headers[name] = name === 'ratelimit' ? value.replace(/r=\d+; t=\d+/, 'r=*; t=*') : value;
  }
  return headers;
}

describe('hot lists answered before Express routes the request (the fast path)', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: TestApp;
  let sequence = 0;
  before(async () => {
    const logger = createLogger('info', 'linkqr-test', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    app = await startTestApp(
      {
        CORS_ORIGINS: ALLOWED,
        PLAN_RATE_LIMITS: JSON.stringify({ test: 100_000, limited: 12 }),
      },
      { logger },
    );
  });
  after(() => app.close());

  /** Which path answered the request of this id, read from the access log: a batch is the fast path's. */
  async function answeredBy(reqId: string): Promise<Answered> {
    let by: Answered | undefined;
    await eventually(async () => {
      for (const line of lines) {
        if (line.reqId === reqId) by = 'express';
        const batch = line.requests as Array<Record<string, unknown>> | undefined;
        if (batch?.some((entry) => entry.reqId === reqId)) by = 'fast path';
      }
      return by !== undefined;
    }, `request ${reqId} is in the access log`);
    return by as Answered;
  }

  /** GET `path` with `key`; answers the response and which path answered it. */
  async function list(key: string, path = '/api/pixels', headers: Record<string, string> = {}) {
    sequence += 1;
    const reqId = `fast-path-${sequence}`;
    const res = await request<PixelList>(app.url, path, {
      key,
      headers: { 'x-request-id': reqId, ...headers },
    });
    expect(res.headers.get('x-request-id')).to.equal(reqId);
    return { res, by: await answeredBy(reqId) };
  }

  /** `list` for a conditional request: a 304 has no body to type. */
  async function conditionalList(key: string, path: string, headers: Record<string, string>) {
    const { res, by } = await list(key, path, headers);
    return { res: { ...res, body: undefined }, by };
  }

  async function userWithPixels(count: number, overrides = {}): Promise<TestUser> {
    const user = await createTestUser(overrides);
    for (let i = 0; i < count; i += 1) {
      const res = await client(app.url, user.apiKey).post('/api/pixel/add', {
        type: 'gtmpixel',
        name: `pixel ${i}`,
        tag: 'GTM-AB12CD3',
      });
      expect(res.status, res.text).to.equal(200);
    }
    return user;
  }

  for (const [what, headers] of [
    ['without an Origin', {}],
    ['from an allowed Origin', { origin: ALLOWED }],
    ['from an Origin not allowed', { origin: 'https://elsewhere.example' }],
  ] as const) {
    it(`answers ${what} exactly as the whole stack did the time before`, async () => {
      const { apiKey } = await userWithPixels(3);
      const cold = await list(apiKey, '/api/pixels', headers);
      const warm = await list(apiKey, '/api/pixels', headers);
      expect(cold.by).to.equal('express');
      expect(warm.by).to.equal('fast path');
      expect(warm.res.status).to.equal(cold.res.status).and.to.equal(200);
      expect(warm.res.text).to.equal(cold.res.text);
      expect(warm.res.body.data.pixels).to.have.length(3);
      expect(comparable(warm.res)).to.deep.equal(comparable(cold.res));
    });
  }

  it('sets CORS headers by the Origin: reflected when allowed, absent when not', async () => {
    const { apiKey } = await userWithPixels(1);
    await list(apiKey);
    const allowed = await list(apiKey, '/api/pixels', { origin: ALLOWED });
    const other = await list(apiKey, '/api/pixels', { origin: 'https://elsewhere.example' });
    expect([allowed.by, other.by]).to.deep.equal(['fast path', 'fast path']);
    expect(allowed.res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    expect(other.res.headers.get('access-control-allow-origin')).to.equal(null);
    expect(allowed.res.headers.get('vary')).to.equal('Origin');
    expect(other.res.headers.get('vary')).to.equal('Origin');
  });

  it('answers a matching If-None-Match 304 as the whole stack does, a stale one 200', async () => {
    const { apiKey } = await userWithPixels(2);
    const first = await list(apiKey);
    // fetch adds `Cache-Control: no-cache` (never fresh) to a conditional request without one.
    const conditional = {
      'if-none-match': first.res.headers.get('etag') as string,
      'cache-control': 'max-age=0',
    };
    const fast = await conditionalList(apiKey, '/api/pixels', conditional);
    // A query the fast path leaves to the stack, for the same page.
    const walked = await conditionalList(apiKey, '/api/pixels?page=1', conditional);
    expect([fast.by, walked.by]).to.deep.equal(['fast path', 'express']);
    expect(fast.res.status).to.equal(304);
    expect(walked.res.status).to.equal(304);
    expect(fast.res.text).to.equal('');
    expect(comparable(fast.res)).to.deep.equal(comparable(walked.res));
    for (const headers of [
      { ...conditional, 'if-none-match': '"stale"' },
      { ...conditional, 'cache-control': 'no-cache' },
    ]) {
      const again = await conditionalList(apiKey, '/api/pixels', headers);
      expect(again.by).to.equal('fast path');
      expect(again.res.status).to.equal(200);
      expect(again.res.text).to.equal(first.res.text);
    }
  });

  it('leaves a query string to the stack: other pages and limits are answered there', async () => {
    const { apiKey } = await userWithPixels(3);
    await list(apiKey);
    const limited = await list(apiKey, '/api/pixels?limit=2');
    expect(limited.by).to.equal('express');
    expect(limited.res.body.data.pixels).to.have.length(2);
    expect(limited.res.body.data.perpage).to.equal(2);
    const invalid = await list(apiKey, '/api/pixels?limit=0');
    expect(invalid.by).to.equal('express');
    expect(invalid.res.status).to.equal(400);
  });

  it('answers a pixel added since (a write drops the page it held)', async () => {
    const user = await userWithPixels(1);
    await list(user.apiKey);
    expect((await list(user.apiKey)).by).to.equal('fast path');
    await client(app.url, user.apiKey).post('/api/pixel/add', {
      type: 'gtmpixel',
      name: 'added since',
      tag: 'GTM-AB12CD3',
    });
    const after = await list(user.apiKey);
    expect(after.by).to.equal('express');
    expect(after.res.body.data.pixels.map((p) => p.name)).to.include('added since');
  });

  it('refuses an unknown key with the 401 of the stack, even once the list is cached', async () => {
    const { apiKey } = await userWithPixels(1);
    await list(apiKey);
    const refused = await list(`${apiKey.slice(0, -4)}zzzz`);
    expect(refused.by).to.equal('express');
    expect(refused.res.status).to.equal(401);
    expect(refused.res.body).to.deep.include({ error: 1, message: 'Invalid API key' });
    expect(refused.res.headers.get('ratelimit')).to.be.a('string');
  });

  it('refuses a key without pixels:read with the 403 of the stack, every time', async () => {
    const { apiKey } = await createTestUser({ admin: true });
    const narrow = await request<{ key: string }>(app.url, '/api/keys/add', {
      key: apiKey,
      body: { name: 'links only', scopes: ['links:read'] },
    });
    expect(narrow.status, narrow.text).to.equal(200);
    for (let i = 0; i < 2; i += 1) {
      const refused = await list(narrow.body.key);
      expect(refused.by).to.equal('express');
      expect(refused.res.status).to.equal(403);
      expect(refused.res.text).to.include('pixels:read');
    }
  });

  it("leaves Linkqr-Account to the stack: a member reads the owner's list", async () => {
    const owner = await userWithPixels(2);
    const member = await userWithPixels(1);
    const added = await client(app.url, owner.apiKey).post('/api/team/add', {
      username: member.user.username,
      role: 'viewer',
    });
    expect(added.status, added.text).to.equal(200);
    await list(member.apiKey);
    const acting = { 'linkqr-account': String(owner.user.id) };
    for (let i = 0; i < 2; i += 1) {
      const read = await list(member.apiKey, '/api/pixels', acting);
      expect(read.by).to.equal('express');
      expect(read.res.status, read.res.text).to.equal(200);
      expect(read.res.body.data.pixels).to.have.length(2);
    }
    expect((await list(member.apiKey)).res.body.data.pixels).to.have.length(1);
  });

  it('counts every request against the cap, and past it answers the 429 of the stack', async () => {
    // The cap is 12 a minute; adding the pixel spent one.
    const { apiKey } = await userWithPixels(1, { plan: 'limited' });
    const answers: Array<{ res: TestResponse<PixelList>; by: Answered }> = [];
    for (let i = 0; i < 14; i += 1) answers.push(await list(apiKey));
    const statuses = answers.map((a) => a.res.status);
    expect(statuses).to.deep.equal([...Array<number>(11).fill(200), 429, 429, 429]);
    expect(answers.map((a) => a.by)).to.include('fast path');
    for (const { res, by } of answers.slice(11)) {
      expect(by).to.equal('express');
      expect(res.text).to.match(/"message":"Rate limit exceeded: try again in \d+ s"/);
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
      expect(res.headers.get('x-ratelimit-remaining')).to.equal('0');
      expect(res.headers.get('ratelimit')).to.match(/^"api-key"; r=0; t=\d+$/);
    }
  });

  it('is counted in the metrics and the caches like a list the stack answers', async () => {
    const { apiKey } = await userWithPixels(1);
    const scrape = async () => (await request(app.url, '/metrics')).text;
    const counts = async () => {
      const text = await scrape();
      return {
        answered: sample(text, 'linkqr_http_requests_total', {
          method: 'GET',
          route: '/api/pixels',
          status: '200',
        }),
        keys: sample(text, 'linkqr_cache_lookups_total', { cache: 'api-keys', result: 'hit' }),
        lists: sample(text, 'linkqr_cache_lookups_total', { cache: 'owned-lists', result: 'hit' }),
      };
    };
    await list(apiKey);
    const before = await counts();
    const { by } = await list(apiKey);
    expect(by).to.equal('fast path');
    expect(await counts()).to.deep.equal({
      answered: before.answered + 1,
      keys: before.keys + 1,
      lists: before.lists + 1,
    });
  });
});
