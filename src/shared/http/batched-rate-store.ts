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

/** The share of what a key has left of its cap that one process may count between syncs. */
export const HEADROOM_SHARE = 4;

/**
 * Whether a hit may be counted in the process (answered from the last shared total plus the
 * hits held here) rather than added to Redis at once and answered with Redis's total. Below
 * the cap a process holds at most a quarter of what it last saw left, so each sync a key forces
 * leaves at most three quarters of the headroom: about log(cap) round trips per window instead of
 * one per hit, and the last few hits before a cap are always decided in Redis. A key Redis has
 * reported at its cap is refused from here (in a fixed window the count only grows); its hits
 * still reach Redis with the next batch. An unknown cap (0) sends every hit to Redis.
 */
export function countsLocally(shared: number, pending: number, cap: number): boolean {
  if (cap <= 0) return false;
  if (shared >= cap) return true;
  return pending < Math.floor((cap - shared) / HEADROOM_SHARE);
}

/** A hit counted in the process: the key's total as this process sees it, and its window's end. */
export interface HeldHit {
  totalHits: number;
  resetTime: Date;
}

interface Counter {
  /** The total Redis last answered for this key, this process's hits up to then included. */
  shared: number;
  /** Hits counted here since, not yet sent to Redis. */
  pending: number;
  /**
   * Hits sent to Redis whose answer has not come back: still counted in every total answered
   * meanwhile, or a total would drop by a batch while it is on its way (and the remaining count
   * a client reads would go up).
   */
  inFlight: number;
  resetAt: number;
  /** `resetAt` as the Date express-rate-limit wants, made once per sync rather than per hit. */
  resetTime: Date;
  /** Whether the key is in the list the next flush writes. */
  queued: boolean;
}

/** The key's total as this process knows it: Redis's last answer and every hit counted since. */
const totalOf = (c: Counter) => c.shared + c.inFlight + c.pending;

export interface BatchedRateStoreOptions {
  /** The store of record: its key layout, reads, decrements and resets. */
  redis: RedisStore;
  sendCommand: SendCommand;
  prefix: string;
  /** The key's cap in a window (0: unknown, and every hit is counted in Redis). */
  cap(key: string): number;
  /** How often the hits counted here are added to Redis (default 50 ms). */
  flushMs?: number;
  /** Keys remembered at most; past it a new key asks Redis each time (default 50,000). */
  maxKeys?: number;
}

/**
 * An express-rate-limit store that spares most requests their Redis round trip. A key's first
 * hit in a window is counted in Redis and answered with its total; after that a hit is counted
 * here while `countsLocally` allows, and answered from the last shared total plus what this
 * process counted since. Those hits reach Redis every `flushMs` (one script per key carrying its
 * count), when this process's view of every key it holds is refreshed too; a hit past this
 * process's share of the headroom is added to Redis at once with the ones held before it.
 *
 * What that allows: with one API process a cap is exact. With several, the hits one process
 * holds are unseen by the others for up to `flushMs`, and each process holds at most a quarter of
 * the headroom it last saw, so N processes together may pass a cap by up to N/4 of the
 * headroom each last saw (a quarter of the cap at most); those hits reach Redis within one sync
 * interval, and from then on every process that takes the key's hits answers from Redis's count.
 */
export class BatchedRateStore implements Store {
  private readonly counters = new Map<string, Counter>();
  /** Counters holding hits for the next flush (a list, not a scan of every key each 50 ms). */
  private queue: Array<[string, Counter]> = [];
  private readonly flushMs: number;
  private readonly maxKeys: number;
  private windowMs = 60_000;
  private sha: Promise<RedisReply> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;
  private sweptAt = Date.now();

  constructor(private readonly options: BatchedRateStoreOptions) {
    this.flushMs = options.flushMs ?? 50;
    this.maxKeys = options.maxKeys ?? 50_000;
  }

  /**
   * Returns rate-limit-redis's script loading, which rejects when Redis cannot be reached:
   * express-rate-limit catches and logs a promise `init` returns, where a dropped one would be an
   * unhandled rejection (fatal to a Node process without a handler).
   */
  init(options: Options): Promise<void> {
    this.windowMs = options.windowMs;
    return this.options.redis.init(options);
  }

  get prefix(): string {
    return this.options.prefix;
  }

  /**
   * Whether the key's next hit would be counted in the process and stay within its cap: then
   * `countInProcess` answers it at once. A request that can be answered without waiting (the hot
   * lists' fast path) asks first, and leaves every other hit to `increment`.
   */
  fitsInProcess(key: string): boolean {
    const counter = this.liveCounter(key, Date.now());
    if (!counter) return false;
    const cap = this.options.cap(key);
    const known = counter.shared + counter.inFlight;
    return known + counter.pending < cap && countsLocally(known, counter.pending, cap);
  }

  /** Counts a hit `fitsInProcess` allowed just before (in the same turn of the event loop). */
  countInProcess(key: string): HeldHit {
    const counter = this.liveCounter(key, Date.now());
    if (!counter) throw new Error(`rate limit counter: no window held for ${key}`);
    return this.countHere(key, counter);
  }

  /**
   * `increment`'s answer when it counts the hit in the process, given at once (no promise for a
   * caller that can answer in the same turn, the redirect fast path); undefined, counting nothing,
   * when the hit must go to Redis: then `increment` counts it.
   */
  incrementInProcess(key: string): HeldHit | undefined {
    const counter = this.liveCounter(key, Date.now());
    if (!counter) return undefined;
    const known = counter.shared + counter.inFlight;
    if (!countsLocally(known, counter.pending, this.options.cap(key))) return undefined;
    return this.countHere(key, counter);
  }

  async increment(key: string): Promise<IncrementResponse> {
    const held = this.incrementInProcess(key);
    if (held) return held;
    const now = Date.now();
    const counter = this.counters.get(key);
    if (counter && counter.resetAt > now) {
      const hits = counter.pending + 1;
      counter.pending = 0;
      counter.inFlight += hits;
      let result: IncrementResponse;
      try {
        result = await this.add(key, hits);
      } catch (err) {
        // Not in Redis: still this process's, for the next try.
        counter.inFlight -= hits;
        counter.pending += hits - 1;
        if (counter.pending > 0) this.enqueue(key, counter);
        throw err;
      }
      // The answer's total holds them now.
      counter.inFlight -= hits;
      return this.remember(key, result);
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
    if (now - this.sweptAt >= this.windowMs) this.sweep(now);
    const queued = this.queue;
    this.queue = [];
    const writes: Array<Promise<void>> = [];
    try {
      for (const [key, counter] of queued) {
        counter.queued = false;
        // Reset, or its window is over: the hits it held counted toward a window Redis let go.
        if (this.counters.get(key) !== counter || counter.resetAt <= now) continue;
        if (counter.pending === 0) continue;
        const hits = counter.pending;
        counter.pending = 0;
        counter.inFlight += hits;
        writes.push(
          this.add(key, hits).then(
            (result) => {
              counter.inFlight -= hits;
              this.remember(key, result);
            },
            () => {
              counter.inFlight -= hits;
              counter.pending += hits;
              this.enqueue(key, counter);
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

  private liveCounter(key: string, now: number): Counter | undefined {
    const counter = this.counters.get(key);
    return counter && counter.resetAt > now ? counter : undefined;
  }

  private countHere(key: string, counter: Counter): HeldHit {
    counter.pending += 1;
    this.enqueue(key, counter);
    return { totalHits: totalOf(counter), resetTime: counter.resetTime };
  }

  private enqueue(key: string, counter: Counter): void {
    if (!counter.queued) {
      counter.queued = true;
      this.queue.push([key, counter]);
    }
    this.startTimer();
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Hits that failed to reach Redis wait for the next batch.
      void this.flush().then(() => {
        if (this.queue.length > 0) this.startTimer();
      });
    }, this.flushMs);
    this.timer.unref();
  }

  /** Forgets keys whose window is over, so memory follows the keys seen in one window. */
  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, counter] of this.counters) {
      if (counter.resetAt <= now) this.counters.delete(key);
    }
  }

  private remember(key: string, result: IncrementResponse): IncrementResponse {
    const now = Date.now();
    const resetTime = result.resetTime ?? new Date(now + this.windowMs);
    const counter = this.counters.get(key);
    if (counter) {
      counter.shared = result.totalHits;
      counter.resetAt = resetTime.getTime();
      counter.resetTime = resetTime;
      return { totalHits: totalOf(counter), resetTime };
    }
    if (this.counters.size >= this.maxKeys && now - this.sweptAt >= this.flushMs) this.sweep(now);
    if (this.counters.size < this.maxKeys) {
      this.counters.set(key, {
        shared: result.totalHits,
        pending: 0,
        inFlight: 0,
        resetAt: resetTime.getTime(),
        resetTime,
        queued: false,
      });
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
