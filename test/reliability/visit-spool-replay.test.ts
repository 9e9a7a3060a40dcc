import { expect } from 'chai';
import { Redis } from 'ioredis';
import { mongo } from 'mongoose';
import { createLogger } from '../../src/shared/infra/logger';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { VisitSpool } from '../../src/visits/visit-spool';
import { visitBacklog } from '../../src/visits/visit-drainer';
import { VisitCount, VisitTotal } from '../../src/visits/visit.model';
import { listVisits } from '../../src/visits/visits.service';
import type { CapturedVisit } from '../../src/visits/visits.types';
import { testRedisPrefix } from '../support/environment';
import { uniqueName } from '../support/users';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
let nextTarget = 6_000_000 + Math.floor(Math.random() * 1_000_000);

class Crash extends Error {}

describe('visit spool: a batch applied halfway into MongoDB, then retried (issue 22, A2)', () => {
  let redis: Redis;
  let keys: RedisKeys;

  beforeEach(() => {
    keys = new RedisKeys(`${testRedisPrefix}${uniqueName('spool')}:`);
    // Not connected yet: to the spool, Redis is down.
    redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, enableOfflineQueue: false });
  });
  afterEach(() => redis.disconnect());

  const realBulkWrite = mongo.Collection.prototype.bulkWrite;
  afterEach(() => {
    mongo.Collection.prototype.bulkWrite = realBulkWrite;
  });

  /** A spool whose first apply step fails on the per-label counts, after the totals went in. */
  function crashingOnce(): VisitSpool {
    let crashed = false;
    mongo.Collection.prototype.bulkWrite = function (this: mongo.Collection, ops, options) {
      if (crashed || this.collectionName !== VisitCount.collection.collectionName) {
        return realBulkWrite.call(this, ops, options);
      }
      crashed = true;
      return Promise.reject(new Crash('connection reset'));
    } as typeof realBulkWrite;
    return new VisitSpool({
      redis,
      keys,
      logger: createLogger('silent'),
      mongoUp: () => true,
      flushEveryMs: 60_000,
    });
  }

  function add(spool: VisitSpool, targetId: number, n: number): void {
    for (let i = 0; i < n; i += 1) {
      const visit: CapturedVisit = {
        kind: 'link',
        targetId,
        at: Date.now(),
        visitor: `v${i}`,
        country: 'France',
        userAgent: FIREFOX,
        referrer: '',
      };
      spool.add(visit);
    }
  }

  async function expectCountedOnce(targetId: number, n: number): Promise<void> {
    const target = `link:${targetId}`;
    const total = await VisitTotal.findOne({ _id: target }).lean();
    const france = await VisitCount.findOne({ target, dim: 'country', label: 'France' }).lean();
    expect([total?.clicks, france?.count]).to.deep.equal([n, n]);
    expect(await listVisits({ kind: 'link', id: targetId })).to.have.length(n);
  }

  it('while Redis stays away, the retry into MongoDB counts each click once', async () => {
    const targetId = nextTarget++;
    const spool = crashingOnce();
    add(spool, targetId, 6);
    await spool.flush();
    expect(spool.stats()).to.deep.equal({ spooled: 6, lost: 0 });
    await spool.flush();
    expect(spool.stats()).to.deep.equal({ spooled: 0, lost: 0 });
    await expectCountedOnce(targetId, 6);
    await spool.close();
  });

  it('when Redis is back, the half-applied batch is finished in MongoDB, not queued again', async () => {
    const targetId = nextTarget++;
    const spool = crashingOnce();
    add(spool, targetId, 6);
    await spool.flush();
    await redis.connect();
    add(spool, targetId, 2);
    await spool.flush();
    expect(spool.stats()).to.deep.equal({ spooled: 0, lost: 0 });
    // The two later clicks went to the stream; the six half-applied ones never did.
    expect(await visitBacklog(redis, keys)).to.equal(2);
    await expectCountedOnce(targetId, 6);
    await spool.close();
  });
});
