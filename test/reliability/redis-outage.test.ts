import { expect } from 'chai';
import { Writable } from 'node:stream';
import type { LinkTarget } from '../../src/links/link-cache';
import { CacheBus } from '../../src/shared/cache/cache-bus';
import { SharedCache } from '../../src/shared/cache/shared-cache';
import { createLogger } from '../../src/shared/infra/logger';
import { standaloneRedis, waitForRedis } from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { VisitDrainer, visitBacklog } from '../../src/visits/visit-drainer';
import { createVisits } from '../../src/visits/visit-recorder';
import { listVisits } from '../../src/visits/visits.service';
import { startTestApp, type TestApp } from '../support/app-harness';
import { testRedisPrefix } from '../support/environment';
import { client, request } from '../support/http';
import { createLink, eventually, linkCacheLive } from '../support/links';
import { PrivateRedis } from '../support/private-redis';
import { createTestUser, uniqueName } from '../support/users';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('Redis outage: redirects keep going, clicks wait and are counted (issue 11)', function () {
  this.timeout(60_000);
  let redisServer: PrivateRedis;
  let app: TestApp;
  let key: string;
  const logLines: string[] = [];
  const opened: TestApp[] = [];

  before(async () => {
    redisServer = await PrivateRedis.start();
    key = (await createTestUser()).apiKey;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((a) => a.close()));
    await redisServer.start();
  });
  after(() => redisServer.stop());

  async function startApp(spool?: { capacity: number; mongoUp: () => boolean }): Promise<TestApp> {
    const env = {
      REDIS_URL: redisServer.url,
      REDIS_PREFIX: `${testRedisPrefix}${uniqueName('out')}:`,
    };
    const redis = standaloneRedis(redisServer.url, 'request');
    redis.on('error', () => undefined);
    await waitForRedis(redis);
    const keys = new RedisKeys(env.REDIS_PREFIX);
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger('warn', 'test', sink);
    const visits = createVisits({
      redis,
      keys,
      logger,
      salt: 's',
      countryHeader: undefined,
      spool,
    });
    const started = await startTestApp(env, { redis, keys, logger, visits });
    opened.push(started);
    return started;
  }

  async function drain(): Promise<void> {
    await app.deps.visits.flush();
    const redis = standaloneRedis(redisServer.url, 'blocking');
    try {
      await new VisitDrainer({
        redis,
        keys: app.deps.keys,
        logger: app.deps.logger,
      }).drainAvailable();
    } finally {
      redis.disconnect();
    }
  }

  it('serves cached links, answers /api 503 at once, and counts every click served once Redis is back', async () => {
    app = await startApp();
    const link = await createLink(app, key, { url: 'https://example.com/outage' });
    await linkCacheLive(app);
    const visit = () => request(app.url, `/${link.alias}`, { headers: { 'user-agent': CHROME } });
    let served = 0;
    for (let i = 0; i < 10; i += 1) if ((await visit()).status === 302) served += 1;
    // This Redis keeps nothing on disk: what it holds when killed is gone, so drain it first
    // (`drain` sends the clicks the app still gathers, queued after their responses, first).
    await drain();
    expect(await visitBacklog(app.deps.redis, app.deps.keys)).to.equal(0);

    await redisServer.stop();
    await eventually(async () => app.deps.redis.status !== 'ready', 'the app sees Redis gone');
    const during = await Promise.all(Array.from({ length: 200 }, visit));
    expect(during.map((r) => r.status)).to.deep.equal(Array(200).fill(302));
    served += during.length;
    expect(app.deps.visits.spoolStats().lost).to.equal(0);
    const api = await client(app.url, key).get('/api/account');
    expect(api.status).to.equal(503);
    expect(api.body).to.deep.include({
      error: 1,
      message: 'Service temporarily unavailable, try again shortly',
    });

    await redisServer.start();
    await eventually(
      async () => app.deps.redis.status === 'ready',
      'the app sees Redis back',
      15_000,
    );
    await eventually(
      async () => app.deps.visits.spoolStats().spooled === 0,
      'the spool is flushed',
      15_000,
    );
    await drain();
    const stats = await client(app.url, key).get<{ data: { clicks: number } }>(
      `/api/url/${link.id}`,
    );
    expect(stats.status).to.equal(200);
    expect(stats.body.data.clicks).to.equal(served);
    expect(await listVisits({ kind: 'link', id: link.id })).to.have.length(served);
  });

  it('answers 503 for a click-limited link with room left, expired for a used-up one, while Redis is away', async () => {
    app = await startApp();
    const roomy = await createLink(app, key, {
      url: 'https://example.com/giveaway',
      maxclicks: 5,
      expiredurl: 'https://example.com/too-late',
    });
    const usedUp = await createLink(app, key, {
      url: 'https://example.com/gone',
      maxclicks: 1,
      expiredurl: 'https://example.com/too-late',
    });
    await linkCacheLive(app);
    const visit = (alias: string, method = 'GET') =>
      request(app.url, `/${alias}`, { method, headers: { 'user-agent': CHROME } });
    expect((await visit(usedUp.alias)).headers.get('location')).to.equal(
      'https://example.com/gone',
    );
    await eventually(
      async () => (await visitBacklog(app.deps.redis, app.deps.keys)) === 1,
      'the click is queued',
    );
    await drain();
    // The used-up link is cached again with its stored click; HEAD caches without a click.
    const touched = await client(app.url, key).put(`/api/url/${usedUp.id}/update`, { title: 't' });
    expect(touched.status).to.equal(200);
    for (const alias of [roomy.alias, usedUp.alias])
      expect((await visit(alias, 'HEAD')).status).to.equal(302);

    await redisServer.stop();
    await eventually(async () => app.deps.redis.status !== 'ready', 'the app sees Redis gone');
    // The click cannot be counted against the limit: not let through uncounted, not called
    // expired (it is not), but "try again shortly", as /api answers.
    const during = await visit(roomy.alias);
    expect(during.status).to.equal(503);
    expect(during.headers.get('retry-after')).to.equal('5');
    expect(during.headers.get('content-type')).to.match(/^text\/html/);
    expect(during.headers.get('location')).to.equal(null);
    expect(during.text).to.include('<h1>Something went wrong</h1>');
    expect(during.text).to.include('<p>Service temporarily unavailable, try again shortly.</p>');
    // Its stored clicks already use the other link up: expired, with no need of Redis.
    const late = await visit(usedUp.alias);
    expect(late.status).to.equal(302);
    expect(late.headers.get('location')).to.equal('https://example.com/too-late');

    await redisServer.start();
    await eventually(
      async () => app.deps.redis.status === 'ready',
      'the app sees Redis back',
      15_000,
    );
    // This Redis kept nothing: the counter starts again from the stored clicks.
    const after = await visit(roomy.alias);
    expect(after.status).to.equal(302);
    expect(after.headers.get('location')).to.equal('https://example.com/giveaway');
  });

  it('writes spooled clicks straight into MongoDB while Redis stays away', async () => {
    app = await startApp();
    const link = await createLink(app, key, { url: 'https://example.com/away' });
    await linkCacheLive(app);
    // HEAD caches the link without recording a click.
    await request(app.url, `/${link.alias}`, { method: 'HEAD' });
    await redisServer.stop();
    await eventually(async () => app.deps.redis.status !== 'ready', 'the app sees Redis gone');
    for (let i = 0; i < 30; i += 1)
      expect(
        (await request(app.url, `/${link.alias}`, { headers: { 'user-agent': CHROME } })).status,
      ).to.equal(302);
    await eventually(
      async () => app.deps.visits.spoolStats().spooled === 0,
      'the spool is written',
      15_000,
    );
    expect(await listVisits({ kind: 'link', id: link.id })).to.have.length(30);
  });

  it('when the spool is full, drops and counts the loss and says so in the log', async () => {
    // MongoDB refuses too (as if both were down): the spool can only fill.
    app = await startApp({ capacity: 5, mongoUp: () => false });
    const link = await createLink(app, key, { url: 'https://example.com/full' });
    await linkCacheLive(app);
    await request(app.url, `/${link.alias}`, { method: 'HEAD' });
    await redisServer.stop();
    await eventually(async () => app.deps.redis.status !== 'ready', 'the app sees Redis gone');
    for (let i = 0; i < 12; i += 1)
      expect((await request(app.url, `/${link.alias}`)).status).to.equal(302);
    // The last click is queued once its 302 is out, after the limiter's count fails open.
    await eventually(
      async () => app.deps.visits.spoolStats().lost === 7,
      'the twelfth click reaches the spool',
    );
    expect(app.deps.visits.spoolStats()).to.deep.equal({ spooled: 5, lost: 7 });
    const ready = await request(app.url, '/readyz');
    expect(ready.body.clicks).to.deep.equal({ spooled: 5, lost: 7 });
    expect(logLines.some((l) => l.includes('click spool full'))).to.equal(true);
  });

  it('serves cached links past their TTL while Redis is away, and reloads once it is back', async () => {
    const redis = standaloneRedis(redisServer.url, 'request');
    redis.on('error', () => undefined);
    await waitForRedis(redis);
    let now = 1_000_000;
    const bus = new CacheBus(
      redis,
      `${testRedisPrefix}${uniqueName('chan')}`,
      createLogger('silent'),
    );
    const cache = new SharedCache<LinkTarget>(bus, {
      name: 'links',
      max: 10,
      ttlMs: 1,
      staleWhileDisconnected: true,
      clock: { now: () => now },
    });
    try {
      await cache.whenLive();
      const target: LinkTarget = {
        id: 1,
        url: 'https://example.com/stale',
        expiresAt: null,
        passwordHash: null,
        direct: true,
      };
      await cache.get('0:stale', async () => target);
      await redisServer.stop();
      await eventually(async () => !cache.receivingInvalidations, 'the cache sees Redis gone');
      now += 10;
      expect(cache.peek('0:stale')).to.deep.equal(target);
      await redisServer.start();
      await cache.whenLive();
      expect(cache.peek('0:stale')).to.equal(undefined);
    } finally {
      redis.disconnect();
    }
  });
});
