import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createLogger } from '../../src/shared/infra/logger';
import { standaloneRedis } from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { VisitDrainer } from '../../src/visits/visit-drainer';
import {
  keepVisitPartitions,
  recordVisitPartitions,
  visitPartitionsKey,
} from '../../src/visits/visit-partitions';
import { encodeVisit, visitPartitionOf, visitStreamKey } from '../../src/visits/visit-stream';
import { getStatistics } from '../../src/visits/visits.service';
import { testRedisPrefix } from '../support/environment';
import { eventually } from '../support/links';
import { CHROME } from '../support/stats';
import { uniqueName } from '../support/users';

/** A logger whose entries the test reads back. */
function recordingLogger() {
  const entries: Array<{ level: number; msg: string; recorded?: number; partitions?: number }> = [];
  const logger = createLogger('info', 'test', {
    write: (line: string) => void entries.push(JSON.parse(line) as (typeof entries)[number]),
  });
  return { logger, errors: () => entries.filter((e) => e.level >= 50) };
}

let nextId = 7_000_000 + Math.floor(Math.random() * 1_000_000);

/** A link whose clicks go to partition 2 of 4, which a worker with 2 partitions never reads. */
function linkBeyondTwoPartitions(): number {
  for (;;) {
    const id = nextId++;
    if (visitPartitionOf('link', id, 4) === 2) return id;
  }
}

describe('VISIT_STREAM_PARTITIONS differing between processes', () => {
  let redis: Redis;
  let keys: RedisKeys;

  before(() => {
    redis = standaloneRedis('redis://127.0.0.1:6379', 'blocking');
  });
  after(() => redis.disconnect());
  beforeEach(() => {
    keys = new RedisKeys(`${testRedisPrefix}${uniqueName('parts')}:`);
  });

  async function queueClick(linkId: number): Promise<void> {
    const click = encodeVisit({
      kind: 'link',
      targetId: linkId,
      at: Date.now(),
      visitor: 'v1',
      country: 'Germany',
      userAgent: CHROME,
      referrer: '',
    });
    await redis.xadd(visitStreamKey(keys, visitPartitionOf('link', linkId, 4)), '*', ...click);
  }

  it('records the first count silently, and logs an error naming both when another differs', async () => {
    const first = recordingLogger();
    expect(await recordVisitPartitions({ redis, keys, logger: first.logger }, 4, 'api')).to.equal(
      4,
    );
    expect(await recordVisitPartitions({ redis, keys, logger: first.logger }, 4, 'api')).to.equal(
      4,
    );
    expect(first.errors()).to.deep.equal([]);

    const fewer = recordingLogger();
    expect(
      await recordVisitPartitions({ redis, keys, logger: fewer.logger }, 2, 'worker'),
    ).to.equal(4);
    expect(fewer.errors()).to.have.length(1);
    expect(fewer.errors()[0]).to.include({ partitions: 2, recorded: 4 });
    expect(fewer.errors()[0]!.msg).to.match(
      /^VISIT_STREAM_PARTITIONS is 2 in this worker process but 4 was recorded by another/,
    );
    // The higher count is kept: a later process is compared with it.
    expect(await redis.get(visitPartitionsKey(keys))).to.equal('4');

    const more = recordingLogger();
    expect(await recordVisitPartitions({ redis, keys, logger: more.logger }, 8, 'api')).to.equal(8);
    expect(more.errors()[0]).to.include({ partitions: 8, recorded: 4 });
    expect(await redis.get(visitPartitionsKey(keys))).to.equal('8');
  });

  it('a worker started with fewer partitions than the API drains the API’s, so its clicks are counted', async () => {
    const api = recordingLogger();
    await recordVisitPartitions({ redis, keys, logger: api.logger }, 4, 'api');
    const linkId = linkBeyondTwoPartitions();
    await queueClick(linkId);

    const worker = recordingLogger();
    const drainer = new VisitDrainer({
      redis,
      keys,
      logger: worker.logger,
      partitions: 2,
      claimIdleMs: 0,
    });
    const stop = keepVisitPartitions({ redis, keys, logger: worker.logger }, drainer);
    try {
      await eventually(async () => drainer.partitions === 4, 'the drainer widens to 4');
      expect(worker.errors()[0]).to.include({ partitions: 2, recorded: 4 });
      expect(await drainer.drainAvailable()).to.equal(1);
      expect(await getStatistics({ kind: 'link', id: linkId }, redis, keys)).to.include({
        clicks: 1,
      });
    } finally {
      stop();
      await drainer.stop();
    }
  });

  it('a running worker widens when an API with more partitions starts after it', async () => {
    const worker = recordingLogger();
    const drainer = new VisitDrainer({
      redis,
      keys,
      logger: worker.logger,
      partitions: 2,
      blockMs: 100,
      claimIdleMs: 0,
    });
    drainer.start();
    const stop = keepVisitPartitions({ redis, keys, logger: worker.logger }, drainer, 50);
    try {
      await eventually(
        async () => (await redis.get(visitPartitionsKey(keys))) === '2',
        'the worker records its count',
      );
      expect(worker.errors()).to.deep.equal([]);

      const api = recordingLogger();
      expect(await recordVisitPartitions({ redis, keys, logger: api.logger }, 4, 'api')).to.equal(
        4,
      );
      expect(api.errors()[0]).to.include({ partitions: 4, recorded: 2 });
      const linkId = linkBeyondTwoPartitions();
      await queueClick(linkId);

      await eventually(async () => drainer.partitions === 4, 'the drainer widens to 4');
      expect(worker.errors()[0]).to.include({ partitions: 2, recorded: 4 });
      await eventually(
        async () => (await getStatistics({ kind: 'link', id: linkId }, redis, keys)).clicks === 1,
        'the click on partition 2 counted',
        10_000,
      );
    } finally {
      stop();
      await drainer.stop();
    }
  });
});
