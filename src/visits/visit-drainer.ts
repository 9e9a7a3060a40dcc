import type { RedisClient } from '../shared/infra/redis-connections';
import { duplicateRedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { PartitionDrainer, type PartitionDrainerOptions } from './visit-partition-drainer';
import {
  DEFAULT_VISIT_PARTITIONS,
  legacyVisitStreamKey,
  visitStreamKey,
  visitStreamKeys,
} from './visit-stream';

export interface VisitDrainerOptions extends Omit<PartitionDrainerOptions, 'stream' | 'idPrefix'> {
  /** VISIT_STREAM_PARTITIONS: every API and worker process must use the same number. */
  partitions?: number;
}

/** Partition 0 keeps the stream's own ids, as the single stream did before partitions. */
function idPrefixOf(partition: number): string {
  return partition === 0 ? '' : `p${partition}/`;
}

/** The id a visit of that partition's stream entry is stored under (unique among partitions). */
export function partitionEntryId(partition: number, streamId: string): string {
  return `${idPrefixOf(partition)}${streamId}`;
}

/**
 * Drains every partition of the click queue, each through its consumer group (which every
 * worker joins), with the same guarantees per partition: an entry is acknowledged only once
 * stored and counted, pending entries are re-read or taken over. Each partition blocks on a
 * connection of its own while running: a blocking read holds its connection (and, on a cluster,
 * that node's connection), so partitions on one connection would wait for each other.
 */
export class VisitDrainer {
  private readonly drainers: PartitionDrainer[];
  private readonly legacy: PartitionDrainer;
  private readonly own: RedisClient[] = [];
  private running = false;

  constructor(private readonly options: VisitDrainerOptions) {
    const partitions = options.partitions ?? DEFAULT_VISIT_PARTITIONS;
    this.drainers = Array.from(
      { length: partitions },
      (_, p) =>
        new PartitionDrainer({
          ...options,
          stream: visitStreamKey(options.keys, p),
          idPrefix: idPrefixOf(p),
        }),
    );
    this.legacy = new PartitionDrainer({
      ...options,
      stream: legacyVisitStreamKey(options.keys),
      idPrefix: 'legacy/',
    });
  }

  async ensureGroup(): Promise<void> {
    await Promise.all(this.drainers.map((d) => d.ensureGroup()));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.drainers.forEach((drainer, p) => {
      if (p === 0) drainer.start();
      else this.startPartition(p);
    });
    // Clicks queued by a version without partitions, once, in the background.
    void this.drainLegacy();
  }

  /** How many partitions this drainer drains. */
  get partitions(): number {
    return this.drainers.length;
  }

  /**
   * Drains `partitions` partitions from now on when that is more than today: another process
   * queues clicks on more partitions than this one was configured with (see
   * `recordVisitPartitions`), and a partition nobody drains would never be counted.
   */
  widen(partitions: number): void {
    for (let p = this.drainers.length; p < partitions; p += 1) {
      this.drainers.push(
        new PartitionDrainer({
          ...this.options,
          stream: visitStreamKey(this.options.keys, p),
          idPrefix: idPrefixOf(p),
        }),
      );
      if (this.running) this.startPartition(p);
    }
  }

  /** Starts partition `p` (not 0) on a connection of its own to block on, same options. */
  private startPartition(p: number): void {
    const redis = duplicateRedisClient(this.options.redis, {});
    redis.on('error', () => undefined);
    this.own.push(redis);
    this.drainers[p] = new PartitionDrainer({
      ...this.options,
      redis,
      stream: visitStreamKey(this.options.keys, p),
      idPrefix: idPrefixOf(p),
    });
    this.drainers[p].start();
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.drainers.map((d) => d.stop()));
    for (const redis of this.own.splice(0)) redis.disconnect();
  }

  /** Processes everything queued right now in every partition; returns how many were stored. */
  async drainAvailable(): Promise<number> {
    let stored = 0;
    for (const drainer of this.drainers) stored += await drainer.drainAvailable();
    return stored;
  }

  private async drainLegacy(): Promise<void> {
    const { redis, keys, logger } = this.options;
    try {
      if ((await redis.exists(legacyVisitStreamKey(keys))) === 0) return;
      const stored = await this.legacy.drainAvailable();
      logger.info({ stored }, 'visits queued before partitions drained');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'visits queued before partitions not drained');
    }
  }
}

/**
 * Stream entries queued and not yet applied (the backlog): a health and benchmark figure. An entry
 * holds the clicks one API process sent in one turn (or one click from the spool), so 0 means
 * every click is stored.
 */
export async function visitBacklog(
  redis: RedisClient,
  keys: RedisKeys,
  partitions = DEFAULT_VISIT_PARTITIONS,
): Promise<number> {
  const lengths = await Promise.all(visitStreamKeys(keys, partitions).map((k) => redis.xlen(k)));
  return lengths.reduce((sum, n) => sum + n, 0);
}
