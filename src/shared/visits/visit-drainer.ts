import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisKeys } from '../infra/redis-keys';
import { applyVisits, type QueuedVisit, type VisitBatchHook } from './visit-apply';
import { decodeVisit, DRAINER_GROUP, visitStreamKey } from './visit-stream';

type StreamEntries = Array<[id: string, fields: string[]]>;
type ReadReply = Array<[stream: string, entries: StreamEntries]> | null;

export interface VisitDrainerOptions {
  /** A connection of its own: the drainer blocks on it. */
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  batchSize?: number;
  blockMs?: number;
  /** Entries another drainer took but did not acknowledge for this long are taken over. */
  claimIdleMs?: number;
  onApplied?: VisitBatchHook;
}

/**
 * Moves queued visits from the Redis stream into MongoDB. Several drainers (one per worker
 * process) share the work through a consumer group; an entry is acknowledged and deleted only
 * after it is stored, and entries of a drainer that died are claimed by another.
 */
export class VisitDrainer {
  private readonly stream: string;
  private readonly consumer = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: VisitDrainerOptions) {
    this.stream = visitStreamKey(options.keys);
  }

  async ensureGroup(): Promise<void> {
    try {
      await this.options.redis.xgroup('CREATE', this.stream, DRAINER_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error) || !err.message.includes('BUSYGROUP')) throw err;
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Processes everything queued right now, without blocking; returns how many were stored. */
  async drainAvailable(): Promise<number> {
    await this.ensureGroup();
    let stored = await this.claimAbandoned();
    for (;;) {
      const entries = await this.read(false);
      if (entries.length === 0) return stored;
      stored += await this.process(entries);
    }
  }

  private async run(): Promise<void> {
    const { logger } = this.options;
    while (this.running) {
      try {
        await this.ensureGroup();
        await this.claimAbandoned();
        while (this.running) {
          const entries = await this.read(true);
          if (entries.length) await this.process(entries);
        }
      } catch (err) {
        logger.error({ err }, 'visit drainer failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async read(block: boolean): Promise<StreamEntries> {
    const { redis, batchSize = 500, blockMs = 1000 } = this.options;
    const reply = (
      block
        ? await redis.xreadgroup(
            'GROUP',
            DRAINER_GROUP,
            this.consumer,
            'COUNT',
            batchSize,
            'BLOCK',
            blockMs,
            'STREAMS',
            this.stream,
            '>',
          )
        : await redis.xreadgroup(
            'GROUP',
            DRAINER_GROUP,
            this.consumer,
            'COUNT',
            batchSize,
            'STREAMS',
            this.stream,
            '>',
          )
    ) as ReadReply;
    return reply?.[0]?.[1] ?? [];
  }

  private async claimAbandoned(): Promise<number> {
    const { redis, claimIdleMs = 30_000, batchSize = 500 } = this.options;
    let stored = 0;
    let cursor = '0-0';
    do {
      const [next, entries] = (await redis.xautoclaim(
        this.stream,
        DRAINER_GROUP,
        this.consumer,
        claimIdleMs,
        cursor,
        'COUNT',
        batchSize,
      )) as [string, StreamEntries];
      cursor = next;
      stored += await this.process(
        entries.filter((e) => Array.isArray(e[1])),
        true,
      );
    } while (cursor !== '0-0');
    return stored;
  }

  private async process(entries: StreamEntries, claimed = false): Promise<number> {
    if (entries.length === 0) return 0;
    const { redis, keys, logger } = this.options;
    const batch: QueuedVisit[] = [];
    for (const [entryId, fields] of entries) {
      const visit = decodeVisit(fields);
      if (visit) batch.push({ entryId, visit });
      else logger.warn({ entryId }, 'dropping malformed visit entry');
    }
    const stored = await applyVisits(batch, redis, keys, {
      mayBeRedelivered: claimed,
      onApplied: this.options.onApplied,
    });
    const ids = entries.map(([id]) => id);
    await redis
      .multi()
      .xack(this.stream, DRAINER_GROUP, ...ids)
      .xdel(this.stream, ...ids)
      .exec();
    return stored;
  }
}

/** Visits queued and not yet applied (the backlog): a health and benchmark figure. */
export async function visitBacklog(redis: Redis, keys: RedisKeys): Promise<number> {
  return redis.xlen(visitStreamKey(keys));
}
