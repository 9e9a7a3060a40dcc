import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { visitRows } from '../src/exports/exports.service';
import { standaloneRedis, waitForRedis } from '../src/shared/infra/redis-connections';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { applyVisits, BatchClock } from '../src/visits/visit-apply';
import { VisitBucket } from '../src/visits/visit.model';
import { purgeExpiredVisits } from '../src/visits/visit-retention';
import { getStatistics, listVisits } from '../src/visits/visits.service';
import type { CapturedVisit } from '../src/visits/visits.types';
import { testRedisPrefix } from './support/environment';
import { uniqueName } from './support/users';

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';

/**
 * Buckets stored by versions before the columnar form hold a subdocument per click: every reader
 * of stored buckets must read them as before, next to buckets of the new form.
 */
describe('visit buckets of the first stored form (a subdocument per click)', () => {
  let redis: Redis;
  let keys: RedisKeys;
  const targetId = 1_500_000_000 + Math.floor(Math.random() * 100_000_000);
  const at = Date.UTC(2001, 0, 1, 12);
  const visit = (clickId: string, i: number, overrides: Partial<CapturedVisit> = {}) => ({
    entryId: clickId,
    visit: {
      kind: 'link' as const,
      targetId,
      at: at + i * 1000,
      visitor: `visitor-${i}`,
      country: 'France',
      userAgent: firefox,
      referrer: 'https://t.co/x',
      clickId,
      ...overrides,
    },
  });

  before(async () => {
    keys = new RedisKeys(`${testRedisPrefix}${uniqueName('bucket-forms')}:`);
    redis = standaloneRedis('redis://127.0.0.1:6379', 'request');
    await waitForRedis(redis);
    // Stored by the previous version, which failed before counting it (its batch is recorded).
    await VisitBucket.collection.insertOne({
      _id: `link:${targetId}:old1` as never,
      kind: 'link',
      targetId,
      from: new Date(at),
      to: new Date(at + 1000),
      batch: { applier: 'aprevious', seq: 4 },
      entryIds: ['old1', 'old2'],
      visits: [
        {
          entryId: 'old1',
          at: new Date(at),
          visitor: 'visitor-0',
          country: 'France',
          referrer: 't.co',
          browser: 'Firefox',
          os: 'Linux',
          social: 'twitter',
          bot: false,
        },
        {
          entryId: 'old2',
          at: new Date(at + 1000),
          visitor: 'visitor-1',
          country: 'Spain',
          referrer: 'Direct',
          browser: 'Firefox',
          os: 'Linux',
          social: null,
          bot: true,
          variant: 'https://b.example/',
        },
      ],
    });
  });
  after(() => redis.disconnect());

  it('is counted on a replay, read back, exported and purged next to the new form', async () => {
    // Its clicks delivered again with a new one: the stored bucket is counted, the new click stored.
    const batch = [
      visit('old1', 0),
      visit('old2', 1),
      visit('new1', 2, { country: 'Germany', referrer: '' }),
    ];
    const clock = new BatchClock();
    expect(await applyVisits(batch, redis, keys, { mayBeRedelivered: true, clock })).to.equal(1);
    // Again: nothing is stored or counted twice.
    expect(await applyVisits(batch, redis, keys, { mayBeRedelivered: true, clock })).to.equal(0);

    const stats = await getStatistics({ kind: 'link', id: targetId }, redis, keys);
    expect(stats).to.deep.include({
      clicks: 2,
      topCountries: { France: '1', Germany: '1' },
      topReferrers: { Direct: '1', 't.co': '1' },
      socialCount: { facebook: 0, twitter: 1, linkedin: 0 },
    });

    const stored = await listVisits({ kind: 'link', id: targetId });
    expect(stored.map((v) => [v.entryId, v.country, v.referrer, v.bot, v.variant])).to.deep.equal([
      ['old1', 'France', 't.co', false, undefined],
      ['old2', 'Spain', 'Direct', true, 'https://b.example/'],
      ['new1', 'Germany', 'Direct', false, undefined],
    ]);
    expect(stored.map((v) => v.at.getTime())).to.deep.equal([at, at + 1000, at + 2000]);

    const rows = [];
    for await (const row of visitRows({ kind: 'link', id: targetId }, {})) rows.push(row);
    expect(rows).to.deep.equal([
      {
        time: new Date(at).toISOString(),
        country: 'France',
        referrer: 't.co',
        browser: 'Firefox',
        os: 'Linux',
        bot: false,
      },
      {
        time: new Date(at + 1000).toISOString(),
        country: 'Spain',
        referrer: 'Direct',
        browser: 'Firefox',
        os: 'Linux',
        bot: true,
      },
      {
        time: new Date(at + 2000).toISOString(),
        country: 'Germany',
        referrer: 'Direct',
        browser: 'Firefox',
        os: 'Linux',
        bot: false,
      },
    ]);
    const ranged = [];
    for await (const row of visitRows(
      { kind: 'link', id: targetId },
      { from: new Date(at + 500), to: new Date(at + 1500) },
    ))
      ranged.push(row);
    expect(ranged.map((r) => r.country)).to.deep.equal(['Spain']);

    // Everything stored before 2002 goes; the purge counts clicks of both forms.
    const purged = await purgeExpiredVisits(1, { now: new Date(Date.UTC(2002, 0, 1)) });
    expect(purged).to.be.at.least(3);
    expect(await listVisits({ kind: 'link', id: targetId })).to.deep.equal([]);
  });
});
