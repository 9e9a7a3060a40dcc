import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { RedisReply, RedisStore } from 'rate-limit-redis';

/**
 * rate-limit-redis's increment script with a step: the same key, value and expiry, so its store
 * still reads, decrements and resets what this one counts. KEYS = counter; ARGV = window ms, hits.
 */
const INCREMENT_BY = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
  return { tonumber(ARGV[2]), tonumber(ARGV[1]) }
end
return { redis.call('INCRBY', KEYS[1], ARGV[2]), ttl }
`;

type SendCommand = (command: string, ...args: string[]) => Promise<RedisReply>;

interface Counter {
  /** The total Redis last answered for this key, this process's hits up to then included. */
  shared: number;
  /** Hits counted here since, not yet in Redis. */
  pending: number;
  resetAt: number;
}

export interface BatchedRateStoreOptions {
  /** The store of record: its key layout, reads, decrements and resets. */
  redis: RedisStore;
  sendCommand: SendCommand;
  prefix: string;
  /**
   * How many hits of a key may be counted here before every hit asks Redis: half the key's cap,
   * so no count near a cap is ever a local guess. 0 for a key sends every hit to Redis.
   */
  localBudget(key: string): number;
  /**
   * The key's cap (0: unknown). A key this process already knows to be past it is refused from
   * the process's count: in a fixed window a refusal stays a refusal, so a client hammering past
   * its cap costs no round trip per request (its hits still reach Redis with the next batch).
   */
  cap?(key: string): number;
  /** How often the hits counted here are added to Redis (default 50 ms). */
  flushMs?: number;
  /** Keys remembered at most; past it a new key asks Redis each time (default 50,000). */
  maxKeys?: number;
}

/**
 * An express-rate-limit store that spares most requests their Redis round trip. A key's first
 * hit in a window, and every hit once this process's view of its total reaches half its cap, is
 * counted in Redis at once (with the hits this process still holds), and answered with Redis's
 * total. Below that, a hit is counted here and answered from the last shared total plus what this
 * process counted since; those hits reach Redis every `flushMs`, when each process's view is
 * refreshed too. With one API process a cap is exact; with several, hits one process holds are
 * unseen by the others for up to `flushMs`, so a client spreading over processes may pass its cap
 * by what it sends in that time (and never by more than half the cap per process).
 */
export class BatchedRateStore implements Store {
  private readonly counters = new Map<string, Counter>();
  private readonly flushMs: number;
  private readonly maxKeys: number;
  private windowMs = 60_000;
  private sha: Promise<RedisReply> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;

  constructor(private readonly options: BatchedRateStoreOptions) {
    this.flushMs = options.flushMs ?? 50;
    this.maxKeys = options.maxKeys ?? 50_000;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.options.redis.init(options);
  }

  get prefix(): string {
    return this.options.prefix;
  }

  async increment(key: string): Promise<IncrementResponse> {
    const now = Date.now();
    const counter = this.counters.get(key);
    if (counter && counter.resetAt > now) {
      const cap = this.options.cap?.(key) ?? 0;
      if (
        counter.shared + counter.pending < this.options.localBudget(key) ||
        (cap > 0 && counter.shared >= cap)
      ) {
        counter.pending += 1;
        this.schedule();
        return {
          totalHits: counter.shared + counter.pending,
          resetTime: new Date(counter.resetAt),
        };
      }
      const hits = counter.pending + 1;
      counter.pending = 0;
      try {
        return this.remember(key, await this.add(key, hits));
      } catch (err) {
        // Not in Redis: still this process's, for the next try.
        counter.pending += hits - 1;
        throw err;
      }
    }
    // A window that is over takes the hits it held with it, as Redis lets its counter go.
    if (counter) this.counters.delete(key);
    return this.remember(key, await this.add(key, 1));
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const stored = await this.options.redis.get(key);
    const counter = this.counters.get(key);
    if (!stored || !counter || counter.resetAt <= Date.now()) return stored;
    return { ...stored, totalHits: stored.totalHits + counter.pending };
  }

  async decrement(key: string): Promise<void> {
    const counter = this.counters.get(key);
    if (counter && counter.pending > 0) {
      counter.pending -= 1;
      return;
    }
    await this.options.redis.decrement(key);
  }

  async resetKey(key: string): Promise<void> {
    this.counters.delete(key);
    await this.options.redis.resetKey(key);
  }

  /** Adds the pending hits to Redis now (the timer does it every `flushMs`). */
  async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    const now = Date.now();
    const writes: Array<Promise<void>> = [];
    try {
      for (const [key, counter] of this.counters) {
        if (counter.resetAt <= now) {
          // Its window is over: the hits it held counted toward a window Redis has let go.
          this.counters.delete(key);
          continue;
        }
        if (counter.pending === 0) continue;
        const hits = counter.pending;
        counter.pending = 0;
        writes.push(
          this.add(key, hits).then(
            (result) => void this.remember(key, result),
            () => {
              counter.pending += hits;
            },
          ),
        );
      }
      await Promise.all(writes);
    } finally {
      this.flushing = false;
    }
  }

  /** Stops the timer; pending hits are not written (a window's worth at most is forgotten). */
  shutdown(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().then(() => {
        if ([...this.counters.values()].some((c) => c.pending > 0)) this.schedule();
      });
    }, this.flushMs);
    this.timer.unref();
  }

  private remember(key: string, result: IncrementResponse): IncrementResponse {
    const resetAt = result.resetTime?.getTime() ?? Date.now() + this.windowMs;
    const counter = this.counters.get(key);
    if (counter) {
      counter.shared = result.totalHits;
      counter.resetAt = resetAt;
      return { totalHits: counter.shared + counter.pending, resetTime: result.resetTime };
    }
    if (this.counters.size < this.maxKeys) {
      this.counters.set(key, { shared: result.totalHits, pending: 0, resetAt });
    }
    return result;
  }

  private async add(key: string, hits: number): Promise<IncrementResponse> {
    const { sendCommand, prefix } = this.options;
    this.sha ??= sendCommand('SCRIPT', 'LOAD', INCREMENT_BY);
    const sha = String(
      await this.sha.catch((err: unknown) => {
        this.sha = undefined;
        throw err;
      }),
    );
    const reply = await sendCommand(
      'EVALSHA',
      sha,
      '1',
      `${prefix}${key}`,
      String(this.windowMs),
      String(hits),
    );
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new TypeError('rate limit counter: unexpected reply from Redis');
    }
    const totalHits = Number(reply[0]);
    return { totalHits, resetTime: new Date(Date.now() + Number(reply[1])) };
  }
}
