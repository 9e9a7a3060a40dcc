import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { hashApiKey } from '../src/shared/secrets';
import { apiKeyCacheFor } from '../src/users/api-key-cache';
import { captureQueries } from './support/query-plans';
import { startTestApp, type TestApp } from './support/app-harness';
import { request, type TestResponse } from './support/http';
import { createTestUser, uniqueName } from './support/users';

/** Each test gets its own Redis key prefix, so counts never leak between tests or runs. */
async function limitedApp(env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  return startTestApp({
    REDIS_PREFIX: `${uniqueName('rl')}:`,
    PLAN_RATE_LIMITS: JSON.stringify({ pro: 5, team: 8 }),
    DEFAULT_RATE_LIMIT: '3',
    ANONYMOUS_RATE_LIMIT: '2',
    ...env,
  });
}

function limitHeaders(res: TestResponse) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: Number(res.headers.get('x-ratelimit-reset')),
  };
}

describe('rate limits', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  const track = (a: TestApp) => (apps.push(a), a);

  it('counts down X-RateLimit-Remaining from the plan cap and answers 429 past it', async () => {
    const app = track(await limitedApp());
    const { apiKey } = await createTestUser({ plan: 'free' });
    const before = Math.floor(Date.now() / 1000);
    const seen: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(app.url, '/api/account', { key: apiKey });
      expect(res.status).to.equal(200);
      const h = limitHeaders(res);
      expect(h.limit).to.equal('3');
      expect(h.reset).to.be.within(before + 1, before + 61);
      seen.push(h.remaining);
    }
    expect(seen).to.deep.equal(['2', '1', '0']);

    const over = await request(app.url, '/api/account', { key: apiKey });
    expect(over.status).to.equal(429);
    expect(over.body).to.deep.equal({ error: 1, message: over.body.message, code: 'rate_limited' });
    expect(over.body.message).to.match(/^Rate limit exceeded: try again in \d+ s$/);
    expect(limitHeaders(over).remaining).to.equal('0');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
  });

  it('sends the IETF RateLimit and RateLimit-Policy headers', async () => {
    const app = track(await limitedApp());
    const { apiKey } = await createTestUser({ plan: 'pro' });
    const res = await request(app.url, '/api/account', { key: apiKey });
    expect(res.headers.get('ratelimit-policy')).to.match(
      /^"api-key"; q=5; w=60; pk=:[A-Za-z0-9+/=]+:$/,
    );
    expect(res.headers.get('ratelimit')).to.match(/^"api-key"; r=4; t=\d+$/);
  });

  it('caps each plan at its configured rate, and unlisted plans at the default', async () => {
    const app = track(await limitedApp());
    const team = await createTestUser({ plan: 'team' });
    const other = await createTestUser({ plan: 'something-else' });
    expect(
      limitHeaders(await request(app.url, '/api/account', { key: team.apiKey })).limit,
    ).to.equal('8');
    expect(
      limitHeaders(await request(app.url, '/api/account', { key: other.apiKey })).limit,
    ).to.equal('3');
  });

  it('defaults to 30 requests per minute when nothing is configured', async () => {
    const app = track(
      await startTestApp({
        REDIS_PREFIX: `${uniqueName('rl')}:`,
        PLAN_RATE_LIMITS: '{}',
        DEFAULT_RATE_LIMIT: undefined,
      }),
    );
    const { apiKey } = await createTestUser({ plan: 'free' });
    expect(limitHeaders(await request(app.url, '/api/account', { key: apiKey })).limit).to.equal(
      '30',
    );
  });

  it('keeps one count per key: another user is not slowed down', async () => {
    const app = track(await limitedApp());
    const a = await createTestUser({ plan: 'free' });
    const b = await createTestUser({ plan: 'free' });
    for (let i = 0; i < 4; i++) await request(app.url, '/api/account', { key: a.apiKey });
    expect((await request(app.url, '/api/account', { key: a.apiKey })).status).to.equal(429);
    expect((await request(app.url, '/api/account', { key: b.apiKey })).status).to.equal(200);
  });

  it('shares one count between two API processes on the same Redis', async () => {
    const prefix = `${uniqueName('rl')}:`;
    const one = track(await limitedApp({ REDIS_PREFIX: prefix }));
    const two = track(await limitedApp({ REDIS_PREFIX: prefix }));
    const { apiKey } = await createTestUser({ plan: 'free' });
    const statuses = [];
    for (const app of [one, two, one, two])
      statuses.push((await request(app.url, '/api/account', { key: apiKey })).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });

  it('limits requests without a valid key per client address, and 401s carry the headers', async () => {
    const app = track(await limitedApp());
    const first = await request(app.url, '/api/account', { key: `lqr_${'B'.repeat(43)}` });
    expect(first.status).to.equal(401);
    expect(limitHeaders(first).limit).to.equal('2');
    expect(limitHeaders(first).remaining).to.equal('1');
    expect((await request(app.url, '/api/account')).status).to.equal(401);
    const third = await request(app.url, '/api/account', { key: `lqr_${'C'.repeat(43)}` });
    expect(third.status).to.equal(429);
    expect(third.body.error).to.equal(1);
  });

  it('counts error responses too: a 422 spends a request and carries the headers', async () => {
    const app = track(await limitedApp());
    const { apiKey } = await createTestUser({ plan: 'free' });
    const res = await request(app.url, '/api/account/update', {
      method: 'PUT',
      key: apiKey,
      body: { email: 'bad' },
    });
    expect(res.status).to.equal(422);
    expect(limitHeaders(res).remaining).to.equal('2');
  });
});

describe('rate limits: a flood of bad keys (issue 29, L3)', () => {
  it('answers 429 past the address cap without looking the keys up in MongoDB', async () => {
    const app = await limitedApp();
    try {
      const keys = Array.from({ length: 8 }, () => `lqr_${randomBytes(32).toString('base64url')}`);
      const hashes = new Set(keys.map(hashApiKey));
      const capture = captureQueries();
      const statuses: number[] = [];
      let last: TestResponse | undefined;
      try {
        for (const key of keys) {
          last = await request(app.url, '/api/account', { key });
          statuses.push(last.status);
        }
      } finally {
        capture.stop();
      }
      expect(statuses).to.deep.equal([401, 401, 429, 429, 429, 429, 429, 429]);
      expect(last?.body).to.deep.equal({
        error: 1,
        message: last?.body.message,
        code: 'rate_limited',
      });
      const lookedUp = capture.queries.filter((q) =>
        [...hashes].some((h) => JSON.stringify(q.filter).includes(h)),
      );
      // Two keys looked up (the user, then the named keys, for each): none past the cap.
      const keysSeen = new Set(
        lookedUp.map((q) => [...hashes].find((h) => JSON.stringify(q.filter).includes(h))),
      );
      expect(keysSeen.size).to.equal(2);
    } finally {
      await app.close();
    }
  });

  it('still takes a valid key that its process has cached from an address past the cap', async () => {
    const app = await limitedApp({ ANONYMOUS_RATE_LIMIT: '1' });
    try {
      await apiKeyCacheFor(app.deps).whenLive();
      const { apiKey } = await createTestUser({ plan: 'pro' });
      expect((await request(app.url, '/api/account', { key: apiKey })).status).to.equal(200);
      const bad = `lqr_${randomBytes(32).toString('base64url')}`;
      expect((await request(app.url, '/api/account', { key: bad })).status).to.equal(401);
      expect((await request(app.url, '/api/account', { key: bad })).status).to.equal(429);
      expect((await request(app.url, '/api/account', { key: apiKey })).status).to.equal(200);
    } finally {
      await app.close();
    }
  });
});
