import { expect } from 'chai';
import { Redis } from 'ioredis';
import { LinkCache, type LinkTarget } from '../../src/links/link-cache';
import { createLogger } from '../../src/shared/infra/logger';
import { createRedis, waitForRedis } from '../../src/shared/infra/redis';
import { testRedisPrefix } from '../support/environment';
import { eventually } from '../support/links';
import { uniqueName } from '../support/users';

const logger = createLogger('silent');
const target = (url: string): LinkTarget => ({ id: 1, url, expiresAt: null, passwordHash: null });

describe('unit: link cache', () => {
  let redis: Redis;
  let channel: string;
  beforeEach(async () => {
    redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    await waitForRedis(redis);
    channel = `${testRedisPrefix}${uniqueName('chan')}`;
  });
  afterEach(() => redis.disconnect());

  function counting(url: string) {
    const calls = { n: 0 };
    const load = async () => {
      calls.n += 1;
      return target(url);
    };
    return { calls, load };
  }

  it('loads once and then answers from memory while subscribed', async () => {
    const cache = new LinkCache(redis, channel, logger);
    await cache.whenLive();
    const { calls, load } = counting('https://a.example/');
    for (let i = 0; i < 5; i += 1)
      expect(await cache.resolve('0:a', load)).to.deep.equal(target('https://a.example/'));
    expect(calls.n).to.equal(1);
  });

  it('answers a cached entry synchronously with peek, and undefined for what must be loaded', async () => {
    const cache = new LinkCache(redis, channel, logger);
    await cache.whenLive();
    expect(cache.peek('0:a')).to.equal(undefined);
    await cache.resolve('0:a', async () => target('https://a.example/'));
    await cache.resolve('0:none', async () => null);
    expect(cache.peek('0:a')).to.deep.equal(target('https://a.example/'));
    expect(cache.peek('0:none')).to.equal(null);
  });

  it('shares one load between simultaneous requests', async () => {
    const cache = new LinkCache(redis, channel, logger);
    await cache.whenLive();
    const { calls, load } = counting('https://a.example/');
    await Promise.all(Array.from({ length: 10 }, () => cache.resolve('0:a', load)));
    expect(calls.n).to.equal(1);
  });

  it('caches an unknown alias too', async () => {
    const cache = new LinkCache(redis, channel, logger);
    await cache.whenLive();
    let calls = 0;
    const load = async () => {
      calls += 1;
      return null;
    };
    expect(await cache.resolve('0:none', load)).to.equal(null);
    expect(await cache.resolve('0:none', load)).to.equal(null);
    expect(calls).to.equal(1);
  });

  it('reloads an unknown alias after its own, shorter TTL', async () => {
    const cache = new LinkCache(redis, channel, logger, { negativeTtlMs: 0 });
    await cache.whenLive();
    let calls = 0;
    const load = async () => {
      calls += 1;
      return null;
    };
    await cache.resolve('0:none', load);
    await cache.resolve('0:none', load);
    expect(calls).to.equal(2);
    const { calls: found, load: loadFound } = counting('https://a.example/');
    await cache.resolve('0:a', loadFound);
    await cache.resolve('0:a', loadFound);
    expect(found.n).to.equal(1);
  });

  it('reloads after the TTL', async () => {
    const cache = new LinkCache(redis, channel, logger, { ttlMs: 0 });
    await cache.whenLive();
    const { calls, load } = counting('https://a.example/');
    await cache.resolve('0:a', load);
    await cache.resolve('0:a', load);
    expect(calls.n).to.equal(2);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new LinkCache(redis, channel, logger, { maxEntries: 2 });
    await cache.whenLive();
    const { calls, load } = counting('https://a.example/');
    for (const key of ['0:a', '0:b', '0:c']) await cache.resolve(key, load);
    expect(cache.size).to.equal(2);
    await cache.resolve('0:a', load);
    expect(calls.n).to.equal(4);
  });

  it('drops keys invalidated by another cache on the same channel', async () => {
    const other = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    await waitForRedis(other);
    try {
      const here = new LinkCache(redis, channel, logger);
      const there = new LinkCache(other, channel, logger);
      await here.whenLive();
      let url = 'https://old.example/';
      const load = async () => target(url);
      expect((await here.resolve('0:a', load))?.url).to.equal(url);
      url = 'https://new.example/';
      await there.invalidate(['0:a']);
      await eventually(
        async () => (await here.resolve('0:a', load))?.url === 'https://new.example/',
        'the invalidation arrives',
      );
    } finally {
      other.disconnect();
    }
  });

  it('does not store a load that overlapped an invalidation', async () => {
    const cache = new LinkCache(redis, channel, logger);
    await cache.whenLive();
    let release: () => void = () => undefined;
    const slow = () =>
      new Promise<LinkTarget>((resolve) => {
        release = () => resolve(target('https://stale.example/'));
      });
    const pending = cache.resolve('0:a', slow);
    await cache.invalidate(['0:a']);
    release();
    expect((await pending)?.url).to.equal('https://stale.example/');
    const { calls, load } = counting('https://fresh.example/');
    expect((await cache.resolve('0:a', load))?.url).to.equal('https://fresh.example/');
    expect(calls.n).to.equal(1);
  });

  it('never serves from memory before the subscription is live', async () => {
    const cache = new LinkCache(redis, channel, logger);
    const { calls, load } = counting('https://a.example/');
    // The first call starts the subscriber; it cannot be live within the same tick.
    await cache.resolve('0:a', load);
    expect(calls.n).to.equal(1);
    expect(cache.size).to.equal(0);
  });
});
