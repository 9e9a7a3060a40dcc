import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { Logger } from 'pino';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { isMongoUp } from '../shared/infra/dependencies';
import { applyVisits, BatchClock, type QueuedVisit } from './visit-apply';
import {
  DEFAULT_VISIT_PARTITIONS,
  encodeVisit,
  visitPartitionOf,
  visitStreamKey,
} from './visit-stream';
import type { CapturedVisit } from './visits.types';

export interface VisitSpoolOptions {
  redis: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  /** The click queue's partitions (VISIT_STREAM_PARTITIONS). */
  partitions?: number;
  /** Visits held at most; past that a visit is dropped and counted as lost. */
  capacity?: number;
  batchSize?: number;
  flushEveryMs?: number;
  /** Whether MongoDB may be written to; the connection state unless a test says otherwise. */
  mongoUp?: () => boolean;
}

export interface VisitSpoolStats {
  /** Visits waiting in this process for Redis or MongoDB. */
  spooled: number;
  /** Visits dropped because the spool was full (or still held at shutdown). */
  lost: number;
}

const LOSS_LOG_EVERY_MS = 10_000;

/**
 * Where clicks wait while Redis cannot take them: a bounded in-process queue, flushed in batches
 * to the Redis stream as soon as Redis answers again, or straight into MongoDB (one apply step
 * per batch) while Redis stays away. The redirect never waits for it. When it is full, clicks are
 * dropped, counted and logged: the loss is bounded and visible, never silent.
 */
export class VisitSpool {
  private queue: CapturedVisit[] = [];
  /**
   * The front of the queue once an apply step into MongoDB failed with it, under the entry ids
   * it was stored with: it may be stored and counted in part, so it is retried into MongoDB, as
   * a redelivery, and never handed to Redis, where it would be counted again under new ids.
   */
  private halfApplied: QueuedVisit[] | undefined;
  private lost = 0;
  private lossLoggedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly clock = new BatchClock();
  private readonly origin = `spool-${process.pid}-${randomBytes(4).toString('hex')}`;
  private sequence = 0;
  private readonly capacity: number;
  private readonly batchSize: number;
  private readonly flushEveryMs: number;

  constructor(private readonly options: VisitSpoolOptions) {
    this.capacity = options.capacity ?? 10_000;
    this.batchSize = options.batchSize ?? 500;
    this.flushEveryMs = options.flushEveryMs ?? 500;
  }

  add(visit: CapturedVisit): void {
    if (this.queue.length >= this.capacity) {
      this.lost += 1;
      this.logLoss();
    } else {
      this.queue.push(visit);
    }
    this.schedule();
  }

  stats(): VisitSpoolStats {
    return { spooled: this.queue.length + (this.halfApplied?.length ?? 0), lost: this.lost };
  }

  /** Flushes until empty or until neither Redis nor MongoDB takes a batch. */
  async flush(): Promise<void> {
    this.flushing ??= this.flushAll().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Last flush at shutdown; whatever still cannot be written is counted as lost. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    if (this.queue.length > 0) await this.flushAll(true);
    const left = this.queue.length + (this.halfApplied?.length ?? 0);
    if (left > 0) {
      this.lost += left;
      this.options.logger.error(
        { lost: left },
        'spooled clicks lost at shutdown: neither Redis nor MongoDB took them',
      );
      this.queue = [];
      this.halfApplied = undefined;
    }
  }

  private schedule(): void {
    if (this.timer || (this.queue.length === 0 && !this.halfApplied)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().finally(() => this.schedule());
    }, this.flushEveryMs);
    this.timer.unref();
  }

  private logLoss(): void {
    const now = Date.now();
    if (now - this.lossLoggedAt < LOSS_LOG_EVERY_MS) return;
    this.lossLoggedAt = now;
    this.options.logger.error(
      { lost: this.lost, capacity: this.capacity },
      'click spool full: clicks are being dropped until Redis or MongoDB answers',
    );
  }

  private async flushAll(closing = false): Promise<void> {
    if (this.halfApplied) {
      if (!(await this.applyToMongo(this.halfApplied, true))) return;
      this.halfApplied = undefined;
    }
    let offset = 0;
    while (this.queue.length > offset) {
      const batch = this.queue.slice(offset, offset + this.batchSize);
      const queued = await this.toRedis(batch);
      if (queued.size > 0) {
        this.queue = this.queue.filter((visit) => !queued.has(visit));
        continue;
      }
      // A click whose XADD may have gone through waits for Redis, where the drainer that meets
      // both copies stores it once; written here, the first copy could be drained afterwards
      // without a look (until shutdown, when waiting longer would lose it).
      const direct = closing ? batch : batch.filter((visit) => !visit.resent);
      const taken = direct.length ? await this.toMongo(direct) : 0;
      if (taken === 0) {
        if (direct.length) return;
        offset += batch.length;
        continue;
      }
      const gone = new Set(direct);
      this.queue = this.queue.filter((visit) => !gone.has(visit));
      if (this.halfApplied) return;
    }
  }

  /**
   * The visits of the batch Redis queued: one pipeline per partition (one slot each, so a cluster
   * takes it), all at once. Only those queued leave the spool, or a retry would count one twice.
   */
  private async toRedis(batch: CapturedVisit[]): Promise<Set<CapturedVisit>> {
    const { redis, keys, partitions = DEFAULT_VISIT_PARTITIONS } = this.options;
    const queued = new Set<CapturedVisit>();
    if (redis.status !== 'ready') return queued;
    const byPartition = new Map<number, CapturedVisit[]>();
    for (const visit of batch) {
      const p = visitPartitionOf(visit.kind, visit.targetId, partitions);
      const list = byPartition.get(p);
      if (list) list.push(visit);
      else byPartition.set(p, [visit]);
    }
    await Promise.all(
      [...byPartition].map(async ([p, visits]) => {
        const stream = visitStreamKey(keys, p);
        const pipeline = redis.pipeline();
        for (const visit of visits) pipeline.xadd(stream, '*', ...encodeVisit(visit));
        const results = await pipeline.exec().catch(() => null);
        visits.forEach((visit, i) => {
          if (results?.[i]?.[0] === null) queued.add(visit);
          // Sent, unanswered or refused: maybe queued all the same; the next copy says so.
          else visit.resent = true;
        });
      }),
    );
    return queued;
  }

  private async toMongo(batch: CapturedVisit[]): Promise<number> {
    if (!(this.options.mongoUp ?? isMongoUp)()) return 0;
    const queued = batch.map((visit) => {
      this.sequence += 1;
      // Under the click's id, as the drainer stores it: a copy that did reach Redis (an XADD
      // whose answer was lost) is then recognised, whichever of the two is stored first.
      return { entryId: visit.clickId ?? `${this.origin}-${this.sequence}`, visit };
    });
    // A click that may have reached Redis too is looked for before it is stored.
    const maybeQueued = batch.some((visit) => visit.resent);
    if (await this.applyToMongo(queued, maybeQueued)) return batch.length;
    // Out of the queue, so Redis never gets it; the next flush finishes it in MongoDB.
    this.halfApplied = queued;
    return batch.length;
  }

  private async applyToMongo(queued: QueuedVisit[], mayBeRedelivered: boolean): Promise<boolean> {
    const { redis, keys, logger } = this.options;
    if (!(this.options.mongoUp ?? isMongoUp)()) return false;
    try {
      await applyVisits(queued, redis, keys, { clock: this.clock, mayBeRedelivered });
      return true;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'spooled clicks not written yet; will retry');
      return false;
    }
  }
}
