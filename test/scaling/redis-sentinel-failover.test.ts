import { expect } from 'chai';
import { linkCacheFor } from '../../src/links/link-cache';
import { createRedisClient, type RedisClient } from '../../src/shared/infra/redis-connections';
import { VisitDrainer, visitBacklog } from '../../src/visits/visit-drainer';
import { startTestApp, type TestApp } from '../support/app-harness';
import { client } from '../support/http';
import { createLink, eventually, visit, type CreatedLink } from '../support/links';
import { TestSentinel } from '../support/redis-topologies';
import { CHROME } from '../support/stats';
import { createTestUser } from '../support/users';

/**
 * The Sentinel-managed primary SIGKILLed under redirect load on two API processes (two apps, each
 * with its own connections, caches and spool) drained by two workers: the sentinel promotes the
 * replica, every connection finds it through the sentinel, redirects go on, /api recovers by
 * itself, and every redirect served is counted exactly once.
 */
describe('on Redis Sentinel: the primary killed under redirect load', function () {
  this.timeout(150_000);
  let sentinel: TestSentinel;
  let apps: TestApp[] = [];
  const drainers: VisitDrainer[] = [];
  const connections: RedisClient[] = [];

  before(async () => {
    sentinel = await TestSentinel.start(1);
    const env = {
      REDIS_SENTINELS: sentinel.addresses,
      REDIS_SENTINEL_NAME: sentinel.name,
      REDIS_URL: 'redis://unused:1',
    };
    apps = [await startTestApp(env), await startTestApp(env)];
    for (const app of apps) await linkCacheFor(app.deps).whenLive();
    for (let i = 0; i < 2; i += 1) {
      const redis = createRedisClient(apps[0]!.config.redis, 'blocking');
      redis.on('error', () => undefined);
      connections.push(redis);
      const drainer = new VisitDrainer({
        redis,
        keys: apps[0]!.deps.keys,
        logger: apps[0]!.deps.logger,
        partitions: apps[0]!.config.visitStreamPartitions,
        blockMs: 200,
        claimIdleMs: 2000,
        claimEveryMs: 1000,
        retryDelayMs: 200,
      });
      drainer.start();
      drainers.push(drainer);
    }
  });
  after(async () => {
    await Promise.all(drainers.map((d) => d.stop()));
    for (const redis of connections) redis.disconnect();
    for (const app of apps) await app.close();
    await sentinel?.stop();
  });

  it('keeps redirecting and counting, recovers /api by itself, and counts every click exactly once', async () => {
    const [one, two] = apps as [TestApp, TestApp];
    const { apiKey } = await createTestUser();
    const links: CreatedLink[] = [];
    for (let n = 0; n < 8; n += 1) {
      links.push(await createLink(one, apiKey, { url: `https://example.com/f${n}` }));
    }
    // Cached in both processes before the loss.
    for (const link of links) {
      for (const app of apps) {
        await visit(app, `/${link.alias}`, { headers: { 'user-agent': CHROME } });
      }
    }
    const served = new Map<number, number>(links.map((l) => [l.id, 2]));
    const partitions = one.config.visitStreamPartitions;
    const victim = await sentinel.primaryPort();
    expect(victim).to.equal(sentinel.primary.port);

    let failed = 0;
    const load = async (until: number) => {
      let i = 0;
      while (Date.now() < until) {
        const link = links[i % links.length]!;
        const app = i % 2 ? two : one;
        i += 1;
        const res = await visit(app, `/${link.alias}`, { headers: { 'user-agent': CHROME } });
        if (res.status === 302) served.set(link.id, (served.get(link.id) ?? 0) + 1);
        else failed += 1;
      }
    };
    const start = Date.now();
    const running = Promise.all([load(start + 6000), load(start + 6000)]);
    await new Promise((r) => setTimeout(r, 1500));
    await sentinel.primary.kill();
    await running;
    expect(failed, 'redirects not answered 302').to.equal(0);

    await eventually(
      async () => (await sentinel.primaryPort()) === sentinel.replica.port,
      'the sentinel to promote the replica',
      30_000,
    );
    for (const app of apps) {
      await eventually(
        async () => (await client(app.url, apiKey).get('/api/account')).status === 200,
        '/api answers again',
        20_000,
      );
    }
    await eventually(
      async () => apps.every((app) => app.deps.visits.spoolStats().spooled === 0),
      'the spools are flushed',
      20_000,
    );
    const lost = apps.reduce((sum, app) => sum + app.deps.visits.spoolStats().lost, 0);
    const total = [...served.values()].reduce((a, b) => a + b, 0);
    const countedClicks = async () => {
      let sum = 0;
      for (const link of links) {
        const res = await client(two.url, apiKey).get<{ data: { clicks: number } }>(
          `/api/url/${link.id}`,
        );
        sum += res.body.data.clicks;
      }
      return sum;
    };
    // Settled: the drainers have taken everything the surviving nodes hold.
    await eventually(
      async () => (await visitBacklog(one.deps.redis, one.deps.keys, partitions)) === 0,
      'the backlog drained',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 2500));
    const counted = await countedClicks();
    // Exactly once: a click whose XADD the kill cut off is re-sent from the spool under its own
    // id, and a drainer that saw the failover looks for entries delivered again.
    expect(lost).to.equal(0);
    expect(counted, 'clicks counted').to.equal(total);
  });
});
