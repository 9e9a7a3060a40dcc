import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createLogger } from '../../src/shared/infra/logger';
import { standaloneRedis } from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import type { ApplyFaults } from '../../src/visits/visit-apply';
import { VisitDrainer, visitBacklog } from '../../src/visits/visit-drainer';
import { DRAINER_GROUP, encodeVisit, visitStreamKey } from '../../src/visits/visit-stream';
import { getStatistics, listVisits } from '../../src/visits/visits.service';
import type { Statistics, VisitTarget } from '../../src/visits/visits.types';
import { testRedisPrefix } from '../support/environment';
import { eventually } from '../support/links';
import { uniqueName } from '../support/users';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
const BOT = 'Googlebot/2.1 (+http://www.google.com/bot.html)';

class Crash extends Error {
  override name = 'Crash';
}

let nextId = 3_000_000 + Math.floor(Math.random() * 1_000_000);

/** What the six visits queued by `queueVisits` must add up to, for each of the two targets. */
const EXPECTED: Statistics = {
  clicks: 5,
  uniqueClicks: 2,
  topCountries: { Germany: '3', France: '2' },
  topReferrers: { 'facebook.com': '2', Direct: '3' },
  topBrowsers: { Chrome: '3', Firefox: '2' },
  topOs: { Windows: '3', Linux: '2' },
  socialCount: { facebook: 2, twitter: 0, linkedin: 0 },
};

describe('visit drainer: no click stranded or counted twice (issue 11)', () => {
  const logger = createLogger('silent');
  let redis: Redis;
  let keys: RedisKeys;
  const drainer = (options: { faults?: ApplyFaults; claimIdleMs?: number } = {}) =>
    new VisitDrainer({ redis, keys, logger, claimIdleMs: 0, ...options });

  beforeEach(() => {
    keys = new RedisKeys(`${testRedisPrefix}${uniqueName('drain')}:`);
  });
  before(() => {
    redis = standaloneRedis('redis://127.0.0.1:6379', 'blocking');
  });
  after(() => redis.disconnect());

  /** The two targets and their six visits each, encoded for the stream. */
  function sixVisitsEach(): { targets: VisitTarget[]; entries: string[][] } {
    const entries: string[][] = [];
    const targets: VisitTarget[] = [
      { kind: 'link', id: nextId++ },
      { kind: 'qr', id: nextId++ },
    ];
    const at = Date.now();
    for (const t of targets) {
      const base = { kind: t.kind, targetId: t.id, at };
      const rows = [
        {
          visitor: 'v1',
          country: 'Germany',
          userAgent: CHROME,
          referrer: 'https://facebook.com/x',
        },
        { visitor: 'v1', country: 'Germany', userAgent: CHROME, referrer: '' },
        {
          visitor: 'v2',
          country: 'France',
          userAgent: FIREFOX,
          referrer: 'https://www.facebook.com/',
        },
        { visitor: 'v2', country: 'France', userAgent: FIREFOX, referrer: '' },
        { visitor: 'v1', country: 'Germany', userAgent: CHROME, referrer: '' },
        { visitor: 'v3', country: 'Germany', userAgent: BOT, referrer: '' },
      ];
      for (const row of rows) entries.push(encodeVisit({ ...base, ...row }));
    }
    return { targets, entries };
  }

  async function queueVisits(): Promise<VisitTarget[]> {
    const { targets, entries } = sixVisitsEach();
    for (const fields of entries) await redis.xadd(visitStreamKey(keys), '*', ...fields);
    return targets;
  }

  async function expectCountedOnce(targets: VisitTarget[]): Promise<void> {
    for (const target of targets) {
      expect(await getStatistics(target, redis, keys), JSON.stringify(target)).to.deep.equal(
        EXPECTED,
      );
      expect(await listVisits(target)).to.have.length(6);
    }
    expect(await visitBacklog(redis, keys)).to.equal(0);
  }

  const crashPoints: Array<[string, ApplyFaults]> = [
    [
      'after storing, before counting',
      { afterStore: () => Promise.reject(new Crash('after store')) },
    ],
    [
      'after the totals, before the per-label counts',
      {
        beforeRollup: (c) => {
          if (c === 'visit_counts') throw new Crash(c);
        },
      },
    ],
    [
      'after the per-label counts, before the totals',
      {
        beforeRollup: (c) => {
          if (c === 'visit_totals') throw new Crash(c);
        },
      },
    ],
    [
      'after counting, before acknowledging',
      { afterCount: () => Promise.reject(new Crash('after count')) },
    ],
  ];

  for (const [point, faults] of crashPoints) {
    it(`a worker killed ${point}: the next one counts every click exactly once`, async () => {
      const targets = await queueVisits();
      const err = await drainer({ faults })
        .drainAvailable()
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Crash);
      expect(await drainer().drainAvailable()).to.be.at.most(12);
      await expectCountedOnce(targets);
      // and a third pass over anything left finds nothing to add
      await drainer().drainAvailable();
      await expectCountedOnce(targets);
    });
  }

  it('survives a crash during the replay of a crashed batch too', async () => {
    const targets = await queueVisits();
    const crash = (faults: ApplyFaults) =>
      drainer({ faults })
        .drainAvailable()
        .catch((e: unknown) => e);
    expect(await crash({ afterStore: () => Promise.reject(new Crash('first')) })).to.be.instanceOf(
      Crash,
    );
    expect(
      await crash({
        beforeRollup: (c) => {
          if (c === 'visit_counts') throw new Crash('second');
        },
      }),
    ).to.be.instanceOf(Crash);
    await drainer().drainAvailable();
    await expectCountedOnce(targets);
  });

  it('while running, re-reads its own batch that failed (MongoDB stalled) without a restart', async () => {
    let failures = 2;
    const running = new VisitDrainer({
      redis,
      keys,
      logger,
      blockMs: 50,
      retryDelayMs: 10,
      claimEveryMs: 60_000,
      faults: {
        afterStore: () => {
          if (failures > 0) {
            failures -= 1;
            throw new Crash('stalled');
          }
        },
      },
    });
    running.start();
    try {
      const targets = await queueVisits();
      await eventually(
        async () => (await visitBacklog(redis, keys)) === 0,
        'the backlog is empty',
        10_000,
      );
      await expectCountedOnce(targets);
      expect(failures).to.equal(0);
    } finally {
      await running.stop();
    }
  });

  it('while running, periodically takes over what a dead drainer left pending', async () => {
    const targets = await queueVisits();
    const stream = visitStreamKey(keys);
    await drainer().ensureGroup();
    await redis.xreadgroup(
      'GROUP',
      DRAINER_GROUP,
      'dead-one',
      'COUNT',
      100,
      'STREAMS',
      stream,
      '>',
    );
    const running = new VisitDrainer({
      redis,
      keys,
      logger,
      blockMs: 50,
      claimIdleMs: 100,
      claimEveryMs: 50,
    });
    running.start();
    try {
      await eventually(
        async () => (await visitBacklog(redis, keys)) === 0,
        'the backlog is empty',
        10_000,
      );
      await expectCountedOnce(targets);
    } finally {
      await running.stop();
    }
  });

  describe('lingering for a fuller batch (VISIT_DRAIN_LINGER_MS)', () => {
    const pendingCount = async () => {
      const [count] = (await redis.xpending(visitStreamKey(keys), DRAINER_GROUP)) as [number];
      return count;
    };

    /** Queues the first visit, waits until the drainer has read it, then the rest at once. */
    async function queueWhileLingering(): Promise<VisitTarget[]> {
      const stream = visitStreamKey(keys);
      const { targets, entries } = sixVisitsEach();
      const [first, ...rest] = entries;
      await drainer().ensureGroup();
      await redis.xadd(stream, '*', ...first!);
      await eventually(async () => (await pendingCount()) === 1, 'the first visit is read');
      const multi = redis.multi();
      for (const fields of rest) multi.xadd(stream, '*', ...fields);
      await multi.exec();
      return targets;
    }

    it('adds the visits queued while it lingers to the batch, stored and counted once', async () => {
      const batches: string[][] = [];
      const running = new VisitDrainer({
        redis,
        keys,
        logger,
        blockMs: 50,
        lingerMs: 1000,
        claimEveryMs: 60_000,
        faults: { afterStore: (ids) => void batches.push([...ids]) },
      });
      running.start();
      try {
        const targets = await queueWhileLingering();
        await eventually(async () => (await visitBacklog(redis, keys)) === 0, 'drained', 10_000);
        await expectCountedOnce(targets);
        expect(batches).to.have.length(1);
        expect(batches[0]).to.have.length(12);
      } finally {
        await running.stop();
      }
    });

    it('when stopped while lingering, stores what it was delivered before it stops', async () => {
      const running = new VisitDrainer({
        redis,
        keys,
        logger,
        blockMs: 50,
        lingerMs: 600_000,
        claimEveryMs: 600_000,
      });
      await running.ensureGroup();
      running.start();
      const target = { kind: 'link' as const, id: nextId++ };
      await redis.xadd(
        visitStreamKey(keys),
        '*',
        ...encodeVisit({
          kind: 'link',
          targetId: target.id,
          at: Date.now(),
          visitor: 'v1',
          country: 'Germany',
          userAgent: CHROME,
          referrer: '',
        }),
      );
      await eventually(async () => (await pendingCount()) === 1, 'the visit is read');
      await running.stop();
      expect((await getStatistics(target, redis, keys)).clicks).to.equal(1);
      expect(await visitBacklog(redis, keys)).to.equal(0);
    });

    it('drainAvailable never lingers: it stores everything queued and returns', async () => {
      const targets = await queueVisits();
      const patient = new VisitDrainer({ redis, keys, logger, lingerMs: 600_000 });
      expect(await patient.drainAvailable()).to.equal(12);
      await expectCountedOnce(targets);
    });
  });

  it('while running, does not let a batch that keeps failing hold up new clicks', async () => {
    const poisoned = await queueVisits();
    const stream = visitStreamKey(keys);
    const poison = new Set((await redis.xrange(stream, '-', '+')).map(([id]) => id));
    const running = new VisitDrainer({
      redis,
      keys,
      logger,
      blockMs: 50,
      retryDelayMs: 5,
      claimEveryMs: 60_000,
      faults: {
        afterStore: (entryIds) => {
          if (entryIds.some((id) => poison.has(id))) throw new Crash('cannot be counted');
        },
      },
    });
    running.start();
    try {
      await eventually(async () => (await listVisits(poisoned[0]!)).length === 6, 'stored');
      const fresh = await queueVisits();
      // Uniques are added just after the counters: wait for the whole statistics object.
      const counted = async (t: VisitTarget) => {
        const stats = await getStatistics(t, redis, keys);
        try {
          expect(stats).to.deep.equal(EXPECTED);
          return true;
        } catch {
          return false;
        }
      };
      await eventually(
        async () => (await counted(fresh[0]!)) && (await counted(fresh[1]!)),
        'new clicks are counted',
        10_000,
      );
      expect((await getStatistics(poisoned[0]!, redis, keys)).clicks).to.equal(0);
    } finally {
      await running.stop();
    }
  });
});
