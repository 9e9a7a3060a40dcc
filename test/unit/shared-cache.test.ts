import { expect } from 'chai';
import { Redis } from 'ioredis';
import { CacheBus } from '../../src/shared/cache/cache-bus';
import { SharedCache, type SharedCacheOptions } from '../../src/shared/cache/shared-cache';
import { createLogger } from '../../src/shared/infra/logger';
import { standaloneRedis, waitForRedis } from '../../src/shared/infra/redis-connections';
import { testRedisPrefix } from '../support/environment';
import { eventually } from '../support/links';
import { uniqueName } from '../support/users';

const logger = createLogger('silent');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Rec {
  url: string;
}

/** A loader that counts its calls and answers from a table (absent keys: null). */
function table(entries: Record<string, string>) {
  const calls: string[] = [];
  const load = (key: string) => async (): Promise<Rec | null> => {
    calls.push(key);
    const url = entries[key];
    return url === undefined ? null : { url };
  };
  return { calls, load, entries };
}

describe('unit: shared cache', () => {
  const connections: Redis[] = [];
  let channel: string;

  async function connect(): Promise<Redis> {
    const redis = standaloneRedis(REDIS_URL, 'request');
    connections.push(redis);
    await waitForRedis(redis);
    return redis;
  }

  /** A cache on a bus of its own connection, as another process would have. */
  async function process_(options: Partial<SharedCacheOptions<Rec>> = {}) {
    const bus = new CacheBus(await connect(), channel, logger);
    const cache = new SharedCache<Rec>(bus, {
      name: 'things',
      max: 100,
      ttlMs: 60_000,
      ...options,
    });
    await cache.whenLive();
    return cache;
  }

  beforeEach(() => {
    channel = `${testRedisPrefix}${uniqueName('cache')}`;
  });
  afterEach(() => {
    for (const redis of connections.splice(0)) redis.disconnect();
  });

  it('loads a record once and then answers from memory', async () => {
    const cache = await process_();
    const { calls, load } = table({ a: 'https://a.example/' });
    for (let i = 0; i < 5; i += 1)
      expect(await cache.get('a', load('a'))).to.deep.equal({ url: 'https://a.example/' });
    expect(calls).to.deep.equal(['a']);
    expect(cache.peek('a')).to.deep.equal({ url: 'https://a.example/' });
  });

  it('shares one load between requests that ask at the same moment', async () => {
    const cache = await process_();
    const { calls, load } = table({ a: 'https://a.example/' });
    await Promise.all(Array.from({ length: 10 }, () => cache.get('a', load('a'))));
    expect(calls).to.deep.equal(['a']);
  });

  it('remembers a miss, and peek tells a known miss (null) from an unknown key (undefined)', async () => {
    const cache = await process_();
    const { calls, load } = table({});
    expect(cache.peek('none')).to.equal(undefined);
    expect(await cache.get('none', load('none'))).to.equal(null);
    expect(await cache.get('none', load('none'))).to.equal(null);
    expect(cache.peek('none')).to.equal(null);
    expect(calls).to.deep.equal(['none']);
  });

  it('loads again once the TTL has passed, misses on their own shorter TTL', async () => {
    let now = 1_000_000;
    const cache = await process_({ ttlMs: 1_000, missTtlMs: 100, clock: { now: () => now } });
    const { calls, load } = table({ a: 'https://a.example/' });
    await cache.get('a', load('a'));
    await cache.get('none', load('none'));
    now += 150;
    await cache.get('a', load('a'));
    await cache.get('none', load('none'));
    expect(calls).to.deep.equal(['a', 'none', 'none']);
    now += 1_000;
    await cache.get('a', load('a'));
    expect(calls).to.deep.equal(['a', 'none', 'none', 'a']);
  });

  it('does not keep a record its keep rule refuses, and loads it again next time', async () => {
    const cache = await process_({ keep: (rec) => !rec.url.startsWith('pending') });
    const { calls, load, entries } = table({ a: 'pending:1' });
    await cache.get('a', load('a'));
    await cache.get('a', load('a'));
    entries.a = 'ready';
    await cache.get('a', load('a'));
    await cache.get('a', load('a'));
    expect(calls).to.deep.equal(['a', 'a', 'a']);
  });

  it('drops the least recently used record when full', async () => {
    const cache = await process_({ max: 2 });
    const { calls, load } = table({ a: 'A', b: 'B', c: 'C' });
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('a', load('a'));
    await cache.get('c', load('c'));
    expect(cache.peek('a')).to.deep.equal({ url: 'A' });
    expect(cache.peek('b')).to.equal(undefined);
    expect(calls).to.deep.equal(['a', 'b', 'c']);
  });

  it('keeps its known records through a flood of unknown keys', async () => {
    const cache = await process_({ max: 10, missMax: 50 });
    const { calls, load } = table({ popular: 'https://popular.example/' });
    await cache.get('popular', load('popular'));
    for (let i = 0; i < 2_000; i += 1) await cache.get(`random${i}`, load(`random${i}`));
    expect(cache.size).to.deep.equal({ found: 1, missing: 50 });
    expect(await cache.get('popular', load('popular'))).to.deep.equal({
      url: 'https://popular.example/',
    });
    expect(calls.filter((k) => k === 'popular')).to.have.length(1);
  });

  it('drops a key in every process when one of them invalidates it', async () => {
    const here = await process_();
    const there = await process_();
    const records = table({ a: 'https://old.example/' });
    expect(await here.get('a', records.load('a'))).to.deep.equal({ url: 'https://old.example/' });
    expect(await there.get('a', records.load('a'))).to.deep.equal({ url: 'https://old.example/' });
    records.entries.a = 'https://new.example/';
    await there.invalidate(['a']);
    expect(there.peek('a')).to.equal(undefined);
    await eventually(async () => here.peek('a') === undefined, 'the invalidation arrives');
    expect(await here.get('a', records.load('a'))).to.deep.equal({ url: 'https://new.example/' });
  });

  it('drops everything in every process when one of them invalidates the whole cache', async () => {
    const here = await process_();
    const there = await process_();
    const bus = new CacheBus(await connect(), channel, logger);
    const other = new SharedCache<Rec>(bus, { name: 'others', max: 10, ttlMs: 60_000 });
    await other.whenLive();
    const { load } = table({ a: 'A', b: 'B' });
    for (const cache of [here, there]) {
      await cache.get('a', load('a'));
      await cache.get('b', load('b'));
    }
    await here.invalidateAll();
    expect(here.size.found).to.equal(0);
    await eventually(async () => there.size.found === 0, 'the invalidation arrives');
    await other.get('a', load('a'));
    await here.get('a', load('a'));
    await here.get('b', load('b'));
    // Messages from one connection arrive in order: once `b` is gone, the other name's was ignored.
    await other.invalidateAll();
    await bus.publish('things', ['b']);
    await eventually(async () => here.peek('b') === undefined, 'delivery');
    expect(here.peek('a')).to.deep.equal({ url: 'A' });
  });

  it('ignores invalidations of another cache name', async () => {
    const here = await process_();
    const bus = new CacheBus(await connect(), channel, logger);
    const other = new SharedCache<Rec>(bus, { name: 'others', max: 10, ttlMs: 60_000 });
    await other.whenLive();
    const { load } = table({ a: 'A', marker: 'M' });
    await here.get('a', load('a'));
    await here.get('marker', load('marker'));
    await other.invalidate(['a']);
    // Messages from one connection arrive in order: once the marker is gone, `a` was ignored.
    await bus.publish('things', ['marker']);
    await eventually(async () => here.peek('marker') === undefined, 'delivery');
    expect(here.peek('a')).to.deep.equal({ url: 'A' });
  });

  it('does not store a load that overlapped an invalidation', async () => {
    const cache = await process_();
    let release: () => void = () => undefined;
    const slow = () =>
      new Promise<Rec>((resolve) => {
        release = () => resolve({ url: 'https://stale.example/' });
      });
    const pending = cache.get('a', slow);
    await cache.invalidate(['a']);
    release();
    expect(await pending).to.deep.equal({ url: 'https://stale.example/' });
    const { calls, load } = table({ a: 'https://fresh.example/' });
    expect(await cache.get('a', load('a'))).to.deep.equal({ url: 'https://fresh.example/' });
    expect(calls).to.deep.equal(['a']);
  });

  it('does not keep a failed load, so the next request tries again', async () => {
    const cache = await process_();
    const failing = () => Promise.reject(new Error('database down'));
    let error: unknown;
    await cache.get('a', failing).catch((err: unknown) => (error = err));
    expect((error as Error).message).to.equal('database down');
    const { calls, load } = table({ a: 'A' });
    expect(await cache.get('a', load('a'))).to.deep.equal({ url: 'A' });
    expect(calls).to.deep.equal(['a']);
  });

  it('never serves from memory before its subscription is live', async () => {
    const bus = new CacheBus(await connect(), channel, logger);
    const cache = new SharedCache<Rec>(bus, { name: 'things', max: 10, ttlMs: 60_000 });
    const { calls, load } = table({ a: 'A' });
    // The first call starts the subscriber; it cannot be live within the same tick.
    await cache.get('a', load('a'));
    expect(cache.size).to.deep.equal({ found: 0, missing: 0 });
    await cache.whenLive();
    await cache.get('a', load('a'));
    await cache.get('a', load('a'));
    expect(calls).to.deep.equal(['a', 'a']);
  });
  describe('handing a value over to the other processes', () => {
    const codec = {
      encode: (rec: Rec) => JSON.stringify(rec),
      decode(encoded: string): Rec | undefined {
        const parsed = JSON.parse(encoded) as { url?: unknown };
        return typeof parsed.url === 'string' ? { url: parsed.url } : undefined;
      },
    };

    it('gives the other processes the value, which they then answer without loading', async () => {
      const here = await process_({ codec });
      const there = await process_({ codec });
      await here.share('a', { url: 'https://a.example/' });
      // The sharer keeps nothing: it shares what it wrote, it does not serve it.
      expect(here.peek('a')).to.equal(undefined);
      await eventually(async () => there.peek('a') !== undefined, 'the value arrives');
      const { calls, load } = table({ a: 'https://loaded.example/' });
      expect(await there.get('a', load('a'))).to.deep.equal({ url: 'https://a.example/' });
      expect(calls).to.deep.equal([]);
    });

    it('shares nothing its keep rule refuses, and refuses to share without a codec', async () => {
      const here = await process_({ codec, keep: (rec) => rec.url.length < 30 });
      const there = await process_({ codec });
      await here.share('long', { url: 'https://a-very-long-address.example/' });
      await here.share('marker', { url: 'https://m.example/' });
      // Messages from one connection arrive in order: once the marker is here, `long` was not sent.
      await eventually(async () => there.peek('marker') !== undefined, 'delivery');
      expect(there.peek('long')).to.equal(undefined);
      const plain = await process_();
      let refused: unknown;
      await plain.share('a', { url: 'x' }).catch((err: unknown) => (refused = err));
      expect(refused).to.be.instanceOf(Error);
      expect((refused as Error).message).to.equal('cache things has no codec to share values with');
    });

    it('ignores a value it cannot decode, and a cache without a codec ignores values', async () => {
      const here = await process_({ codec });
      const bare = await process_();
      const bus = new CacheBus(await connect(), channel, logger);
      await bus.publishValue('things', 'bad', JSON.stringify({ url: 42 }));
      await bus.publishValue('things', 'a', JSON.stringify({ url: 'https://a.example/' }));
      await eventually(async () => here.peek('a') !== undefined, 'delivery');
      expect(here.peek('bad')).to.equal(undefined);
      expect(bare.peek('a')).to.equal(undefined);
    });

    it('parses only the messages of caches it holds, and never its own', async () => {
      const here = await process_({ codec });
      const other = new CacheBus(await connect(), channel, logger);
      const parse = JSON.parse;
      const parsed: string[] = [];
      JSON.parse = function (text: string, reviver?: Parameters<typeof parse>[1]) {
        parsed.push(text);
        return parse(text, reviver) as unknown;
      };
      try {
        await other.publishValue('elsewhere', 'k', JSON.stringify({ url: 'https://e.example/' }));
        await here.invalidate(['own']);
        await other.publish('things', ['marker']);
        await eventually(async () => parsed.some((t) => t.includes('marker')), 'delivery');
      } finally {
        JSON.parse = parse;
      }
      expect(parsed.filter((t) => t.includes('elsewhere') || t.includes('"own"'))).to.deep.equal(
        [],
      );
    });

    it('a value handed over never replaces a load in flight, nor reaches a cache offline', async () => {
      const here = await process_({ codec });
      const there = await process_({ codec });
      let release: () => void = () => undefined;
      const slow = () =>
        new Promise<Rec>((resolve) => {
          release = () => resolve({ url: 'https://loaded.example/' });
        });
      const pending = there.get('a', slow);
      await here.share('a', { url: 'https://shared.example/' });
      await here.share('marker', { url: 'https://m.example/' });
      await eventually(async () => there.peek('marker') !== undefined, 'delivery');
      release();
      expect(await pending).to.deep.equal({ url: 'https://loaded.example/' });
      expect(there.peek('a')).to.deep.equal({ url: 'https://loaded.example/' });
      const offline = new SharedCache<Rec>(new CacheBus(await connect(), channel, logger), {
        name: 'things',
        max: 10,
        ttlMs: 60_000,
        codec,
      });
      offline.accept('b', JSON.stringify({ url: 'https://b.example/' }));
      expect(offline.size.found).to.equal(0);
    });
  });

  describe('watching a key for its next change', () => {
    /** Whether the promise has settled once everything queued so far has run. */
    async function settled(promise: Promise<void>): Promise<boolean> {
      let done = false;
      void promise.then(() => (done = true));
      await new Promise((resolve) => setImmediate(resolve));
      return done;
    }

    it('fires when another process invalidates the key, and not for other keys', async () => {
      const api = await process_();
      const worker = await process_();
      const watch = api.watch('a');
      expect(watch).to.not.equal(undefined);
      expect(api.watchCount).to.equal(1);
      await worker.invalidate(['b']);
      await eventually(async () => api.peek('b') === undefined, 'b is dropped');
      expect(await settled(watch!.changed)).to.equal(false);
      await worker.invalidate(['a']);
      await watch!.changed;
      expect(api.watchCount).to.equal(0);
    });

    it("fires on the process's own invalidation and when everything is dropped", async () => {
      const cache = await process_();
      const own = cache.watch('a')!;
      const all = [cache.watch('b')!, cache.watch('c')!];
      await cache.invalidate(['a']);
      expect(await settled(own.changed)).to.equal(true);
      expect(await settled(all[0]!.changed)).to.equal(false);
      await cache.invalidateAll();
      expect(await settled(Promise.all(all.map((w) => w.changed)).then(() => undefined))).to.equal(
        true,
      );
      expect(cache.watchCount).to.equal(0);
    });

    it('forgets a cancelled watch: it never fires and no longer counts', async () => {
      const cache = await process_();
      const kept = cache.watch('a')!;
      const cancelled = cache.watch('a')!;
      cancelled.cancel();
      cancelled.cancel();
      expect(cache.watchCount).to.equal(1);
      await cache.invalidate(['a']);
      expect(await settled(kept.changed)).to.equal(true);
      expect(await settled(cancelled.changed)).to.equal(false);
      expect(cache.watchCount).to.equal(0);
    });

    it('declines beyond maxWatches, and while no invalidation can arrive', async () => {
      const cache = await process_({ maxWatches: 2 });
      const held = [cache.watch('a'), cache.watch('b')];
      expect(cache.watch('c')).to.equal(undefined);
      held[0]!.cancel();
      expect(cache.watch('c')).to.not.equal(undefined);
      const offline = new SharedCache<Rec>(new CacheBus(await connect(), channel, logger), {
        name: 'things',
        max: 10,
        ttlMs: 60_000,
      });
      expect(offline.watch('a')).to.equal(undefined);
    });
  });
});
