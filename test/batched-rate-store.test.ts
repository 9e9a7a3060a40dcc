import { expect } from 'chai';
import type { Options } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { BatchedRateStore } from '../src/shared/http/batched-rate-store';
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

  /** One API process's store; `sent` counts the EVALSHA/EVAL commands it sends. */
  function processStore(
    prefix: string,
    cap: number,
    client: Redis = redis,
    windowMs = 60_000,
    refusesLocally = false,
  ) {
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
      localBudget: () => Math.floor(cap / 2),
      ...(refusesLocally ? { cap: () => cap } : {}),
      flushMs: 60_000, // flushed by the tests themselves
    });
    store.init({ windowMs } as Options);
    stores.push(store);
    return { store, sent };
  }

  it('counts hits below half the cap in the process and adds them to Redis in one write', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store, sent } = processStore(prefix, 100);
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

  it('refuses a key Redis reported past its cap from the process, and still adds those hits', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store, sent } = processStore(prefix, 4, redis, 60_000, true);
    const totals: number[] = [];
    for (let i = 0; i < 8; i += 1) totals.push((await store.increment('k')).totalHits);
    expect(totals).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    // Hit 1 opens the window, hit 2 is within half the cap, 3 and 4 ask Redis; from hit 5 on,
    // Redis has said 4 of 4: refused without asking again.
    expect(sent.count).to.equal(3);
    await store.flush();
    expect(await redis.get(`${prefix}k`)).to.equal('8');
    // Another process adding to the count does not make a refused key pass.
    const other = processStore(prefix, 4, redis, 60_000, true).store;
    expect((await other.increment('k')).totalHits).to.equal(9);
  });

  it('decides a cap on the shared count: two processes together stop at exactly the cap', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const one = processStore(prefix, 10).store;
    const two = processStore(prefix, 10).store;
    const totals: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      totals.push((await one.increment('k')).totalHits, (await two.increment('k')).totalHits);
    }
    // Below half the cap each process may answer from its own view; past it, every total is
    // Redis's, so the 11th hit and after are seen as over the cap by whichever process takes it.
    expect(totals.filter((t) => t > 10)).to.have.length(4);
    expect(totals.slice(-4).every((t) => t > 10)).to.equal(true);
    expect(Number(await redis.get(`${prefix}k`))).to.equal(14);
  });

  it('keeps one count per key', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store } = processStore(prefix, 100);
    await store.increment('a');
    await store.increment('a');
    expect((await store.increment('b')).totalHits).to.equal(1);
    await store.flush();
    expect(await redis.get(`${prefix}a`)).to.equal('2');
    expect(await redis.get(`${prefix}b`)).to.equal('1');
  });

  it('starts a new window when the old one is over, forgetting hits it held', async () => {
    const prefix = `${uniqueName('brs')}:`;
    const { store } = processStore(prefix, 100, redis, 100);
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
      const { store } = processStore(prefix, 100, dead);
      const failed = await store.increment('k').then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failed).to.be.instanceOf(Error);
    } finally {
      dead.disconnect();
    }
  });
});
