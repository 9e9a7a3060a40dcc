import { expect } from 'chai';
import { createLogger } from '../src/shared/infra/logger';
import { startTestApp, type TestApp } from './support/app-harness';
import { limiterCommands } from './support/limiter-commands';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

/**
 * Issue 29, L3: the public routes (redirects, QR images, pages) are limited per client address,
 * the cached-redirect fast path included, at one Redis round trip per request.
 */
describe('public routes: per-address rate limit (PUBLIC_RATE_LIMIT)', () => {
  const logged: string[] = [];
  const logger = createLogger('info', 'linkqr-test', {
    write: (line: string) => {
      const entry = JSON.parse(line) as { msg?: string; path?: string };
      if (entry.msg === 'request completed' && entry.path) logged.push(entry.path);
    },
  });
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function limitedApp(env: NodeJS.ProcessEnv): Promise<TestApp> {
    const app = await startTestApp(
      { REDIS_PREFIX: `${uniqueName('prl')}:`, TRUST_PROXY: '1', ...env },
      { logger },
    );
    apps.push(app);
    await linkCacheLive(app);
    return app;
  }

  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

  it('answers 429 past the cap on redirects, QR images and pages alike, with Retry-After', async () => {
    const app = await limitedApp({ PUBLIC_RATE_LIMIT: '4' });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/limited' });
    const client = from('198.51.100.7');
    const statuses = [
      (await visit(app, `/${link.alias}`, client)).status,
      (await visit(app, `/${link.alias}`, client)).status,
      (await visit(app, '/qr/nothing-here.png', client)).status,
      (await visit(app, '/b/nobody-here', client)).status,
    ];
    expect(statuses).to.deep.equal([302, 302, 404, 404]);

    const redirect = await visit(app, `/${link.alias}`, client);
    expect(redirect.status).to.equal(429);
    expect(redirect.headers.get('content-type')).to.match(/^text\/html/);
    expect(redirect.text).to.contain('Too many requests');
    expect(Number(redirect.headers.get('retry-after'))).to.be.within(1, 60);
    expect(redirect.headers.get('location')).to.equal(null);
    expect((await visit(app, '/qr/nothing-here.png', client)).status).to.equal(429);
    expect((await visit(app, '/b/nobody-here', client)).status).to.equal(429);

    // Another address has its own count.
    expect((await visit(app, `/${link.alias}`, from('203.0.113.9'))).status).to.equal(302);
  });

  it('limits the fast path (a cached link), counting each click in Redis once half the cap is spent', async () => {
    const app = await limitedApp({ PUBLIC_RATE_LIMIT: '5' });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/fast-limited' });
    const client = from('198.51.100.8');
    // The first click fills the cache through the normal routes (and loads the limiter's script).
    expect((await visit(app, `/${link.alias}`, client)).status).to.equal(302);
    logged.length = 0;
    const statuses: number[] = [];
    const commands = await limiterCommands(app, async () => {
      for (let i = 0; i < 4; i += 1)
        statuses.push((await visit(app, `/${link.alias}`, client)).status);
    });
    expect(statuses).to.deep.equal([302, 302, 302, 302]);
    expect(logged, 'answered by the fast path').to.not.include(`/${link.alias}`);
    // Click 2 is counted in this process (2 of 5 is within half the cap); 3, 4 and 5 in Redis.
    expect(commands).to.equal(3);

    const over = await visit(app, `/${link.alias}`, client);
    expect(over.status).to.equal(429);
    expect(over.headers.get('location')).to.equal(null);
  });

  it('far below the cap, adds a client’s clicks to Redis in batches, none lost (issue 28)', async () => {
    const app = await limitedApp({ PUBLIC_RATE_LIMIT: '1000' });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/batched' });
    const client = from('198.51.100.10');
    expect((await visit(app, `/${link.alias}`, client)).status).to.equal(302);
    const commands = await limiterCommands(app, async () => {
      for (let i = 0; i < 20; i += 1)
        expect((await visit(app, `/${link.alias}`, client)).status).to.equal(302);
    });
    // One batched write per 50 ms at most, not one per click.
    expect(commands).to.be.below(20);
    const counter = `${app.deps.keys.publicRateLimit()}ip:198.51.100.10`;
    const deadline = Date.now() + 2000;
    while (Number(await app.deps.redis.get(counter)) < 21 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(Number(await app.deps.redis.get(counter))).to.equal(21);
    expect(await app.deps.redis.pttl(counter)).to.be.within(1, 60_000);
  });

  it('is off with PUBLIC_RATE_LIMIT=0: no count, no Redis command', async () => {
    const app = await limitedApp({ PUBLIC_RATE_LIMIT: '0' });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/unlimited' });
    const client = from('198.51.100.9');
    const statuses: number[] = [];
    const commands = await limiterCommands(app, async () => {
      for (let i = 0; i < 6; i += 1)
        statuses.push((await visit(app, `/${link.alias}`, client)).status);
      statuses.push((await visit(app, '/qr/nothing-here.png', client)).status);
    });
    expect(statuses).to.deep.equal([302, 302, 302, 302, 302, 302, 404]);
    expect(commands).to.equal(0);
  });

  it('does not limit the API, the dashboard or the health check', async () => {
    const app = await limitedApp({ PUBLIC_RATE_LIMIT: '1' });
    const { apiKey } = await createTestUser();
    const client = from('198.51.100.10');
    expect((await visit(app, '/nothing-here-1', client)).status).to.equal(404);
    expect((await visit(app, '/nothing-here-2', client)).status).to.equal(429);
    const api = await visit(app, '/api/account', {
      headers: { ...client.headers, authorization: `Bearer ${apiKey}` },
    });
    expect(api.status).to.equal(200);
    expect((await visit(app, '/app/signin', client)).status).to.equal(200);
    expect((await visit(app, '/healthz', client)).status).to.be.oneOf([200, 503]);
  });
});
