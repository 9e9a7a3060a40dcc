import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { mongo } from 'mongoose';
import { standaloneRedis } from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { hourOf } from '../../src/stats/stats-rollup';
import { VisitHour, VisitHourLabel } from '../../src/stats/stats.model';
import { applyVisits, BatchClock, type QueuedVisit } from '../../src/visits/visit-apply';
import { VisitCount, VisitTotal } from '../../src/visits/visit.model';
import { testDbName, testRedisPrefix, state } from '../support/environment';
import { uniqueName } from '../support/users';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
const ROLLUP_COLLECTIONS = new Set([
  VisitTotal.collection.collectionName,
  VisitCount.collection.collectionName,
  VisitHour.collection.collectionName,
  VisitHourLabel.collection.collectionName,
]);

let nextTarget = 5_000_000 + Math.floor(Math.random() * 1_000_000);

function visitsOf(targetId: number, n: number, tag: string): QueuedVisit[] {
  return Array.from({ length: n }, (_, i) => ({
    entryId: `${tag}-${i}`,
    visit: {
      kind: 'link' as const,
      targetId,
      at: Date.now(),
      visitor: `${tag}-v${i}`,
      country: 'Germany',
      userAgent: FIREFOX,
      referrer: '',
    },
  }));
}

/** Every counter of a link and the current hour: totals, per label, per hour, per hour and label. */
async function countersOf(targetId: number): Promise<number[]> {
  const target = `link:${targetId}`;
  const hour = hourOf(Date.now());
  const [total, country, perHour, perHourCountry] = await Promise.all([
    VisitTotal.findOne({ _id: target }).lean(),
    VisitCount.findOne({ target, dim: 'country', label: 'Germany' }).lean(),
    VisitHour.findOne({ target, hour }).lean(),
    VisitHourLabel.findOne({ target, hour, dim: 'country', label: 'Germany' }).lean(),
  ]);
  return [
    total?.clicks ?? 0,
    country?.count ?? 0,
    perHour?.clicks ?? 0,
    perHourCountry?.count ?? 0,
  ];
}

describe('visit apply: two appliers creating the same new counters (issue 22, A1)', () => {
  let redis: Redis;
  let keys: RedisKeys;
  const realBulkWrite = mongo.Collection.prototype.bulkWrite;

  before(() => {
    redis = standaloneRedis('redis://127.0.0.1:6379', 'blocking');
  });
  beforeEach(() => {
    keys = new RedisKeys(`${testRedisPrefix}${uniqueName('race')}:`);
  });
  afterEach(() => {
    mongo.Collection.prototype.bulkWrite = realBulkWrite;
  });
  after(() => redis.disconnect());

  it('an upsert that loses the insert race (E11000 from the server) still counts its batch', async () => {
    const targetId = nextTarget++;
    // The other applier creates every counter document of a fresh link and hour first...
    await applyVisits(visitsOf(targetId, 3, `other${targetId}`), redis, keys, {
      clock: new BatchClock(),
    });
    // ...while this applier's upserts had already found no document: their inserts now meet the
    // unique key. A filter condition no document meets makes the server do exactly that: it
    // answers E11000 for each upsert, as it does in the real race.
    let raced = 0;
    mongo.Collection.prototype.bulkWrite = function (this: mongo.Collection, ops, options) {
      if (!ROLLUP_COLLECTIONS.has(this.collectionName))
        return realBulkWrite.call(this, ops, options);
      const lost = ops.map((op) => {
        if (!('updateOne' in op) || !op.updateOne.upsert) return op;
        raced += 1;
        const filter = { ...op.updateOne.filter, 'raced-before-insert': { $exists: true } };
        return { updateOne: { ...op.updateOne, filter } };
      });
      return realBulkWrite.call(this, lost, options);
    } as typeof realBulkWrite;

    expect(await applyVisits(visitsOf(targetId, 4, `mine${targetId}`), redis, keys)).to.equal(4);
    expect(raced).to.be.greaterThan(0);
    expect(await countersOf(targetId)).to.deep.equal([7, 7, 7, 7]);
  });

  it('a batch really counted before is still refused after the E11000 (no double count)', async () => {
    const targetId = nextTarget++;
    const clock = new BatchClock();
    const batch = visitsOf(targetId, 5, `once${targetId}`);
    await applyVisits(batch, redis, keys, { clock });
    // The same stored bucket counted again, as a replay would: E11000, then nothing matches.
    await applyVisits(batch, redis, keys, { mayBeRedelivered: true });
    expect(await countersOf(targetId)).to.deep.equal([5, 5, 5, 5]);
  });

  it('two worker processes applying to one link in a fresh hour count every click', async function () {
    this.timeout(90_000);
    const targetId = nextTarget++;
    const prefix = `${testRedisPrefix}${uniqueName('procs')}:`;
    const startAt = Date.now() + 6_000;
    const [batches, perBatch] = [15, 4];
    const child = path.join(__dirname, '..', 'support', 'applier-child.ts');
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(
          process.execPath,
          ['--import', 'tsx', child, state.mongoUri as string, testDbName, prefix].concat([
            String(targetId),
            String(batches),
            String(perBatch),
            String(startAt),
          ]),
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        p.stdout.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr.on('data', (d: Buffer) => (out += d.toString()));
        p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(out))));
      });
    const outputs = await Promise.all([run(), run()]);
    for (const out of outputs) expect(out).to.contain(`applied ${batches * perBatch}`);
    const all = 2 * batches * perBatch;
    // Both started in the same hour; one may have crossed into the next, so hours are summed.
    const target = `link:${targetId}`;
    const hours = await VisitHour.find({ target }).lean();
    expect(hours.reduce((n, h) => n + (h.clicks ?? 0), 0)).to.equal(all);
    const [total, country] = await countersOf(targetId);
    expect([total, country]).to.deep.equal([all, all]);
  });
});
