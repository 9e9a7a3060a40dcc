import { hostname } from 'node:os';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { Logger } from 'pino';
import type { RedisKeys } from '../shared/infra/redis-keys';
import {
  applyVisits,
  BatchClock,
  type ApplyFaults,
  type QueuedVisit,
  type VisitBatchHook,
} from './visit-apply';
import { decodeEntry, DRAINER_GROUP } from './visit-stream';

const MAX_OWN_RETRIES = 5;

/** What a connection reports when a server went away (ioredis, one server or a cluster). */
const TROUBLE_EVENTS = ['error', 'node error', '-node', 'close', 'reconnecting'] as const;

type StreamEntries = Array<[id: string, fields: string[]]>;
type ReadReply = Array<[stream: string, entries: StreamEntries]> | null;

export interface PartitionDrainerOptions {
  /** A connection of its own: the drainer blocks on it. */
  redis: RedisClient;
  /** The partition's stream. */
  stream: string;
  /**
   * Makes the partition's entry ids unique among all partitions (stream ids are unique only
   * within one stream), since a stored visit is recognised by its id on a replay.
   */
  idPrefix: string;
  keys: RedisKeys;
  logger: Logger;
  batchSize?: number;
  blockMs?: number;
  /**
   * After a read that did not fill a batch, wait this long for more visits before storing them
   * (0: store at once). The apply step's cost is mostly per batch, not per visit, so under load a
   * short wait makes each click much cheaper; `drainAvailable` never waits.
   */
  lingerMs?: number;
  /** Entries delivered (to any drainer, this one included) but unacknowledged this long are taken over. */
  claimIdleMs?: number;
  /** How often the running loop looks for such entries. */
  claimEveryMs?: number;
  /** Pause after a failed batch before trying again. */
  retryDelayMs?: number;
  /**
   * For this long after its connection reported trouble (an error, a node lost, a reconnect),
   * every batch is looked for among the stored visits before it is stored: a replica promoted
   * before it had the consumer group's progress delivers entries again as new.
   */
  suspectMs?: number;
  /** Tests only: stop the apply step where a crash would. */
  faults?: ApplyFaults;
  /** Told of every newly stored batch (the `clicks` webhook). */
  onApplied?: VisitBatchHook;
}

/**
 * Moves the queued visits of one partition's stream into MongoDB. Several drainers (one per
 * worker process) share the work through a consumer group; an entry is acknowledged and deleted only
 * after it is stored and counted. A batch that fails (MongoDB stalled, say) stays pending: this
 * drainer re-reads its own pending entries before taking new ones, and every drainer periodically
 * takes over entries left pending too long by anyone, so nothing waits for a restart.
 */
export class PartitionDrainer {
  private readonly stream: string;
  private readonly consumer = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly clock = new BatchClock();
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Set after a failure: this consumer's own pending entries come first. */
  private ownPending = false;
  /**
   * Failures in a row. Past a few, new entries go first again and the failing ones are left to
   * the periodic claim, so one batch that cannot be stored never holds up every other click.
   */
  private failures = 0;
  private lastClaim = 0;
  /** Until when batches may hold entries stored before (see `suspectMs`). */
  private suspectUntil = 0;
  private readonly onTrouble = () => {
    this.suspectUntil = Date.now() + (this.options.suspectMs ?? 60_000);
  };

  constructor(private readonly options: PartitionDrainerOptions) {
    this.stream = options.stream;
  }

  private watch(on: boolean): void {
    const { redis } = this.options;
    for (const event of TROUBLE_EVENTS) {
      if (on) redis.on(event, this.onTrouble);
      else redis.off(event, this.onTrouble);
    }
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
    this.watch(true);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.watch(false);
  }

  /** Processes everything queued right now, without blocking; returns how many were stored. */
  async drainAvailable(): Promise<number> {
    await this.ensureGroup();
    let stored = await this.claimAbandoned();
    for (;;) {
      const entries = await this.read('>', false);
      if (entries.length === 0) return stored;
      stored += await this.process(entries, false);
    }
  }

  private async run(): Promise<void> {
    const { logger, claimEveryMs = 5000, retryDelayMs = 1000 } = this.options;
    while (this.running) {
      try {
        await this.ensureGroup();
        while (this.running) {
          if (Date.now() - this.lastClaim >= claimEveryMs) await this.claimAbandoned();
          await this.step();
        }
      } catch (err) {
        this.failures += 1;
        this.ownPending = this.failures <= MAX_OWN_RETRIES;
        logger.error({ err }, 'visit drainer failed; retrying');
        await this.sleep(retryDelayMs);
      }
    }
  }

  private async step(): Promise<void> {
    if (this.ownPending) {
      // ID 0 re-reads what this consumer was delivered and never acknowledged.
      const entries = await this.read('0', false);
      if (entries.length === 0) this.ownPending = false;
      else await this.process(entries, true);
      this.failures = 0;
      return;
    }
    const entries = await this.read('>', true);
    if (entries.length) await this.process(await this.topUp(entries), false);
    this.failures = 0;
  }

  /** Lets a partial batch fill for `lingerMs`, then adds what arrived (up to a batch). */
  private async topUp(entries: StreamEntries): Promise<StreamEntries> {
    const { batchSize = 500, lingerMs = 0 } = this.options;
    if (lingerMs <= 0 || entries.length >= batchSize || !this.running) return entries;
    await this.sleep(lingerMs);
    // Stopping: store what was delivered, and take nothing new.
    if (!this.running) return entries;
    const more = await this.read('>', false, batchSize - entries.length);
    return more.length ? entries.concat(more) : entries;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async read(
    from: '>' | '0',
    block: boolean,
    count = this.options.batchSize ?? 500,
  ): Promise<StreamEntries> {
    const { redis, blockMs = 1000 } = this.options;
    const group = ['GROUP', DRAINER_GROUP, this.consumer, 'COUNT', count] as const;
    const reply = (
      block
        ? await redis.xreadgroup(...group, 'BLOCK', blockMs, 'STREAMS', this.stream, from)
        : await redis.xreadgroup(...group, 'STREAMS', this.stream, from)
    ) as ReadReply;
    return reply?.[0]?.[1] ?? [];
  }

  /** Takes over entries pending too long, whoever was delivered them; returns how many were stored. */
  private async claimAbandoned(): Promise<number> {
    const { redis, claimIdleMs = 30_000, batchSize = 500 } = this.options;
    this.lastClaim = Date.now();
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

  private async process(entries: StreamEntries, redelivered: boolean): Promise<number> {
    if (entries.length === 0) return 0;
    const { redis, keys, logger, faults } = this.options;
    const batch: QueuedVisit[] = [];
    for (const [entryId, fields] of entries) {
      const decoded = decodeEntry(fields);
      if (!decoded) logger.warn({ entryId }, 'dropping malformed visit entry');
      else if (decoded.malformed) {
        logger.warn({ entryId, malformed: decoded.malformed }, 'dropping malformed visits');
      }
      // A click's own id when it has one: every copy of it is stored once. Older entries: the
      // partition-qualified stream id.
      for (const visit of decoded?.visits ?? []) {
        batch.push({ entryId: visit.clickId ?? `${this.options.idPrefix}${entryId}`, visit });
      }
    }
    const stored = await applyVisits(batch, redis, keys, {
      mayBeRedelivered:
        redelivered || Date.now() < this.suspectUntil || batch.some((b) => b.visit.resent),
      clock: this.clock,
      faults,
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
