import { expect } from 'chai';
import type { Options } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { BatchedRateStore, countsLocally } from '../src/shared/http/batched-rate-store';
import { RecoveringRedisStore } from '../src/shared/http/rate-limit';
import {
  scriptSafeSendCommand,
  standaloneRedis,
  waitForRedis,
} from '../src/shared/infra/redis-connections';
import { uniqueName } from './support/users';

/**
 * Issue 28: the rate limiters' store counts most hits in the process and adds them to Redis in
 * batches; a cap is still decided on the shared count (rate-limit-redis's key, read by its store).
 */
describe('the batched rate-limit store', () => {
  let redis: Redis;
  const stores: BatchedRateStore[] = [];
  before(async () => {
    redis = standaloneRedis('redis://127.0.0.1:6379', 'request');
    await waitForRedis(redis);
  });
  after(() => redis.disconnect());
  afterEach(() => stores.splice(0).forEach((s) => s.shutdown()));

  /** One API process's store, not yet initialised; `sent` counts the EVALSHA/EVAL commands it sends. */
  function newStore(prefix: string, cap: number, client: Redis = redis) {
    const send = scriptSafeSendCommand(client);
    const sent = { count: 0 };
    const sendCommand: typeof send = (command, ...args) => {
      if (command.startsWith('EVAL')) sent.count += 1;
      return send(command, ...args);
    };
    const store = new BatchedRateStore({
      redis: new RecoveringRedisStore({ prefix, sendCommand }),
      sendCommand,
      prefix,
      cap: () => cap,
      flushMs: 60_000, // flushed by the tests themselves
    });
    stores.push(store);
    return { store, sent };
  }

  /** One API process's store, initialised as express-rate-limit does. */
  async function processStore(
    prefix: string,
    cap: number,
    client: Redis = redis,
    windowMs = 60_000,
  ) {
    const made = newStore(prefix, cap, client);
    await made.store.init({ windowMs } as Options);
    return made;
  }

  it('counts hits well below the cap in the process and adds them to Redis in one write', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store, sent } = await processStore(prefix, 100);
    const totals: number[] = [];
    for (let i = 0; i < 10; i += 1) totals.push((await store.increment('k')).totalHits);
    expect(totals).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(sent.count, 'only the first hit asked Redis').to.equal(1);
    expect(await redis.get(`${prefix}k`)).to.equal('1');
    await store.flush();
    expect(sent.count).to.equal(2);
    expect(await redis.get(`${prefix}k`)).to.equal('10');
    expect(await redis.pttl(`${prefix}k`)).to.be.within(1, 60_000);
    expect((await store.get('k'))?.totalHits).to.equal(10);
  });

  it('never answers a lower total while a batch of its hits is on its way to Redis', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store } = await processStore(prefix, 1_000);
    const totals: number[] = [];
    for (let i = 0; i < 5; i += 1) totals.push((await store.increment('k')).totalHits);
    // The batch leaves now; its answer comes back only after the next hits are counted.
    const flushed = store.flush();
    totals.push((await store.increment('k')).totalHits);
    expect(store.fitsInProcess('k')).to.equal(true);
    totals.push(store.countInProcess('k').totalHits);
    await flushed;
    totals.push((await store.increment('k')).totalHits);
    expect(totals).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    await store.flush();
    expect(await redis.get(`${prefix}k`)).to.equal('8');
  });

  it('refuses a key Redis reported past its cap from the process, and still adds those hits', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store, sent } = await processStore(prefix, 4);
    const totals: number[] = [];
    for (let i = 0; i < 8; i += 1) totals.push((await store.increment('k')).totalHits);
    expect(totals).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    // With less than four hits of headroom left every hit asks Redis (1 to 4); from hit 5 on,
    // Redis has said 4 of 4: refused without asking again.
    expect(sent.count).to.equal(4);
    await store.flush();
    expect(await redis.get(`${prefix}k`)).to.equal('8');
    // Another process adding to the count does not make a refused key pass.
    const other = (await processStore(prefix, 4)).store;
    expect((await other.increment('k')).totalHits).to.equal(9);
  });

  it('decides a cap on the shared count: two processes together stop at exactly the cap', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const one = (await processStore(prefix, 10)).store;
    const two = (await processStore(prefix, 10)).store;
    const totals: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      totals.push((await one.increment('k')).totalHits, (await two.increment('k')).totalHits);
    }
    // Each process holds at most a quarter of the headroom it last saw, and the last hits before
    // the cap are decided in Redis: here exactly ten hits pass, and every later one is refused.
    expect(totals.filter((t) => t <= 10)).to.have.length(10);
    expect(totals.slice(-4).every((t) => t > 10)).to.equal(true);
    await Promise.all([one.flush(), two.flush()]);
    expect(Number(await redis.get(`${prefix}k`))).to.equal(14);
  });

  it('approaches a cap in a few syncs, not a round trip per hit past its half', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store, sent } = await processStore(prefix, 1000);
    let passed = 0;
    for (let i = 0; i < 1000; i += 1)
      if ((await store.increment('k')).totalHits <= 1000) passed += 1;
    expect(passed).to.equal(1000);
    expect((await store.increment('k')).totalHits).to.equal(1001);
    // log(1000 / 4) / log(4 / 3) syncs and the last three hits: 24 here, against the ~500 of a
    // store that asks Redis for every hit past half the cap.
    expect(sent.count).to.be.within(15, 30);
    await store.flush();
    expect(await redis.get(`${prefix}k`)).to.equal('1001');
  });

  it('answers at once what increment would count in the process, and leaves every other hit to increment', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store, sent } = await processStore(prefix, 10);
    expect(store.incrementInProcess('k'), 'no window held yet').to.equal(undefined);
    const totals: number[] = [];
    const inProcess: boolean[] = [];
    for (let i = 0; i < 14; i += 1) {
      const held = store.incrementInProcess('k');
      inProcess.push(held !== undefined);
      totals.push(held ? held.totalHits : (await store.increment('k')).totalHits);
    }
    // The same totals and round trips as `increment` alone (the two-process test's one side):
    // the first hit and those near the cap asked Redis, the rest and the refused were answered here.
    expect(totals).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(inProcess.filter((x) => !x)).to.have.length(sent.count);
    expect(inProcess.slice(-3)).to.deep.equal([true, true, true]);
    await store.flush();
    expect(await redis.get(`${prefix}k`)).to.equal('14');
  });

  it('keeps one count per key', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store } = await processStore(prefix, 100);
    await store.increment('a');
    await store.increment('a');
    expect((await store.increment('b')).totalHits).to.equal(1);
    await store.flush();
    expect(await redis.get(`${prefix}a`)).to.equal('2');
    expect(await redis.get(`${prefix}b`)).to.equal('1');
  });

  it('starts a new window when the old one is over, forgetting hits it held', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store } = await processStore(prefix, 100, redis, 100);
    await store.increment('k');
    await store.increment('k');
    await new Promise((r) => setTimeout(r, 150));
    expect((await store.increment('k')).totalHits).to.equal(1);
    await store.flush();
    expect(await redis.get(`${prefix}k`)).to.equal('1');
  });

  it('throws when Redis cannot count a key it must ask about, and keeps the hits it holds', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const dead = standaloneRedis('redis://127.0.0.1:1', 'request', {
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    dead.on('error', () => undefined);
    try {
      const { store } = await processStore(prefix, 100, dead);
      const failed = await store.increment('k').then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failed).to.be.instanceOf(Error);
    } finally {
      dead.disconnect();
    }
  });

  it('hands a failed script load at init to its caller instead of leaving it unhandled', async () => {
    // express-rate-limit catches and logs a promise its store's init returns; one the store
    // dropped was an unhandled rejection. The app's scriptSafeSendCommand answers SCRIPT LOAD
    // itself, so this is a sendCommand that does go to (an unreachable) Redis.
    const refused = () => Promise.reject(new Error('connection refused'));
    const store = new BatchedRateStore({
      redis: new RecoveringRedisStore({ prefix: 'brs-init:', sendCommand: refused }),
      sendCommand: refused,
      prefix: 'brs-init:',
      cap: () => 100,
    });
    const init: unknown = store.init({ windowMs: 60_000 } as Options);
    expect(init, 'init returns its promise').to.be.instanceOf(Promise);
    const failed = await (init as Promise<void>).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).to.be.instanceOf(Error).with.property('message', 'connection refused');
  });
});

describe('countsLocally: when a hit may be counted in the process', () => {
  it('sends every hit of a key whose cap is unknown to Redis', () => {
    expect(countsLocally(0, 0, 0)).to.equal(false);
    expect(countsLocally(5, 0, 0)).to.equal(false);
  });

  it('holds at most a quarter of the headroom last seen', () => {
    // 100 left: up to 25 hits held.
    expect(countsLocally(0, 0, 100)).to.equal(true);
    expect(countsLocally(0, 24, 100)).to.equal(true);
    expect(countsLocally(0, 25, 100)).to.equal(false);
    // 20 left: 5 held.
    expect(countsLocally(80, 4, 100)).to.equal(true);
    expect(countsLocally(80, 5, 100)).to.equal(false);
  });

  it('decides the last hits before a cap in Redis', () => {
    for (const shared of [97, 98, 99])
      expect(countsLocally(shared, 0, 100), `${shared}`).to.equal(false);
  });

  it('refuses from the process once Redis has reported the cap reached', () => {
    expect(countsLocally(100, 0, 100)).to.equal(true);
    expect(countsLocally(140, 12, 100)).to.equal(true);
  });
});
