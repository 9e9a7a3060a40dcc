import { LRUCache } from 'lru-cache';
import { cacheCounters } from '../metrics/process-metrics';
import type { BusMember, CacheBus, Clock } from './cache-bus';

export interface SharedCacheOptions<V = unknown> {
  /** Unique per kind of record: names its invalidations on the bus. */
  name: string;
  /** Found records kept, least recently used dropped first. */
  max: number;
  ttlMs: number;
  /**
   * "No such record" answers kept, in a cache of their own so that a flood of unknown keys
   * (random aliases, guessed API keys) can never push known records out.
   */
  missMax?: number;
  missTtlMs?: number;
  /**
   * While the bus is disconnected no invalidation can arrive anyway: serve what is held, however
   * old, rather than send every request to MongoDB. Everything is dropped on reconnection.
   */
  staleWhileDisconnected?: boolean;
  /** Whether a loaded record may be kept (a record in a passing state may not); all by default. */
  keep?: (value: V) => boolean;
  /** How long a kept record lives, for records whose state passes soon; `ttlMs` by default. */
  ttlOf?: (value: V) => number;
  /** The clock TTLs are measured on; the bus's by default. */
  clock?: Clock;
  /** Watches held at once (see `watch`); beyond it, `watch` declines. */
  maxWatches?: number;
  /**
   * How a value travels between processes, for `share`. Only for caches whose keys name content
   * that never changes: a value handed over can then never be one a write has replaced.
   */
  codec?: ValueCodec<V>;
}

/** A cached value as a string on the bus; `decode` answers undefined for anything malformed. */
export interface ValueCodec<V> {
  encode(value: V): string;
  decode(encoded: string): V | undefined;
}

/** Someone waiting for a key to change. */
export interface KeyWatch {
  /** Resolves when the key is next dropped here: invalidated by any process, or everything dropped. */
  readonly changed: Promise<void>;
  /** Stops watching (a watch that has fired needs no cancelling). */
  cancel(): void;
}

/**
 * The one in-process cache of the service: true LRU with TTL (lru-cache), one load per key however
 * many requests ask at once, and coherence across processes through the CacheBus. A change is
 * visible at once in the writing process and within a pub/sub delivery in the others; the TTL is
 * only the safety net for a lost message.
 *
 * Loads are de-duplicated here rather than with lru-cache's `fetch`, because a pending fetch takes
 * a slot among the found records and an invalidation during it rejects every waiter.
 */
export class SharedCache<V extends object> implements BusMember {
  readonly name: string;
  /**
   * Hits and misses of `get`, labelled with the cache's name. `peek` counts nothing, so a caller
   * that answers from a peek counts its hit itself and a request is never counted twice.
   */
  readonly lookups: ReturnType<typeof cacheCounters>;
  private readonly keep: (value: V) => boolean;
  private readonly ttlOf: ((value: V) => number) | undefined;
  private readonly staleWhileDisconnected: boolean;
  private readonly found: LRUCache<string, V>;
  private readonly missing: LRUCache<string, true>;
  private readonly loading = new Map<string, Promise<V | null>>();
  /** Bumped by every invalidation, so a load that overlapped one is never stored. */
  private generation = 0;
  private readonly watches = new Map<string, Set<() => void>>();
  private watching = 0;
  private readonly maxWatches: number;
  private readonly codec: ValueCodec<V> | undefined;

  constructor(
    private readonly bus: CacheBus,
    options: SharedCacheOptions<V>,
  ) {
    this.name = options.name;
    this.lookups = cacheCounters(options.name);
    this.keep = options.keep ?? (() => true);
    this.ttlOf = options.ttlOf;
    this.staleWhileDisconnected = options.staleWhileDisconnected ?? false;
    this.maxWatches = options.maxWatches ?? 10_000;
    this.codec = options.codec;
    const clock = options.clock ?? bus.clock;
    // Expired entries stay until replaced, so they can still be served stale while disconnected.
    const timing = {
      noDeleteOnStaleGet: true,
      ...(clock ? { perf: clock, ttlResolution: 0 } : {}),
    };
    this.found = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs, ...timing });
    this.missing = new LRUCache<string, true>({
      max: options.missMax ?? Math.max(1, Math.floor(options.max / 10)),
      ttl: options.missTtlMs ?? 5_000,
      ...timing,
    });
    bus.join(this);
  }

  /**
   * The cached answer without waiting (for the redirect's fast path): the record, null for a
   * known miss, or undefined when it must be loaded.
   */
  peek(key: string): V | null | undefined {
    if (!this.bus.live) {
      this.bus.start();
      if (!this.staleWhileDisconnected) return undefined;
      const stale = this.found.get(key, { allowStale: true });
      if (stale !== undefined) return stale;
      return this.missing.get(key, { allowStale: true }) ? null : undefined;
    }
    const hit = this.found.get(key);
    if (hit !== undefined) return hit;
    return this.missing.get(key) ? null : undefined;
  }

  /** The cached record, or loads it once however many requests ask at the same moment. */
  get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.peek(key);
    if (hit !== undefined) {
      this.lookups.hit.inc();
      return Promise.resolve(hit);
    }
    this.lookups.miss.inc();
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const wasLive = this.bus.live;
    const promise = load().then(
      (value) => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
        // A load that overlapped an invalidation or a reconnect may hold the old record.
        if (wasLive && this.bus.live && generation === this.generation) this.store(key, value);
        return value;
      },
      (err: unknown) => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, promise);
    return promise;
  }

  /**
   * Holds a record this process has just written, so that the first read after the write needs
   * no load. Only while invalidations are received, and never over a load in flight (which may
   * be about to store what it read before the write).
   */
  prime(key: string, value: V): void {
    if (!this.bus.live || this.loading.has(key)) return;
    this.store(key, value);
  }

  /**
   * Hands a value the caller has just written to the other processes' caches, so that their first
   * read of it needs no load (this process keeps nothing). Needs the `codec` option.
   */
  async share(key: string, value: V): Promise<void> {
    if (!this.codec) throw new Error(`cache ${this.name} has no codec to share values with`);
    if (!this.keep(value)) return;
    await this.bus.publishValue(this.name, key, this.codec.encode(value));
  }

  /** A value another process shared (see `share`), held like one this process primed. */
  accept(key: string, encoded: string): void {
    let value: V | undefined;
    try {
      value = this.codec?.decode(encoded);
    } catch {
      // A malformed message costs its key a load, as if it had never been sent.
    }
    if (value !== undefined) this.prime(key, value);
  }

  /** Drops the keys in every process (this one at once). */
  invalidate(keys: readonly string[]): Promise<void> {
    return this.bus.publish(this.name, keys);
  }

  /** Drops everything this cache holds, in every process. */
  invalidateAll(): Promise<void> {
    return this.bus.publishAll(this.name);
  }

  /**
   * Watches a key for its next change. Start watching before reading the key, so that no change
   * can fall between the read and the wait. Undefined while no invalidation can arrive (the bus
   * is disconnected) or when `maxWatches` are held already.
   */
  watch(key: string): KeyWatch | undefined {
    if (!this.bus.live || this.watching >= this.maxWatches) return undefined;
    let wake: () => void = () => undefined;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    let waiting = this.watches.get(key);
    if (!waiting) this.watches.set(key, (waiting = new Set()));
    waiting.add(wake);
    this.watching += 1;
    const cancel = () => {
      const current = this.watches.get(key);
      if (!current?.delete(wake)) return;
      this.watching -= 1;
      if (current.size === 0) this.watches.delete(key);
    };
    return { changed, cancel };
  }

  /** Watches held now. */
  get watchCount(): number {
    return this.watching;
  }

  forget(keys: readonly string[]): void {
    this.generation += 1;
    for (const key of keys) {
      this.found.delete(key);
      this.missing.delete(key);
      this.loading.delete(key);
      this.wake(key);
    }
  }

  forgetAll(): void {
    this.generation += 1;
    this.found.clear();
    this.missing.clear();
    this.loading.clear();
    for (const key of [...this.watches.keys()]) this.wake(key);
  }

  private wake(key: string): void {
    const waiting = this.watches.get(key);
    if (!waiting) return;
    this.watches.delete(key);
    this.watching -= waiting.size;
    for (const wake of waiting) wake();
  }

  /** False while the bus is disconnected from Redis. */
  get receivingInvalidations(): boolean {
    return this.bus.live;
  }

  /** Resolves once invalidations from other processes are being received. */
  whenLive(): Promise<void> {
    return this.bus.whenLive();
  }

  /** Found and missing records held now. */
  get size(): { found: number; missing: number } {
    return { found: this.found.size, missing: this.missing.size };
  }

  private store(key: string, value: V | null): void {
    if (value === null) {
      this.found.delete(key);
      this.missing.set(key, true);
    } else if (this.keep(value)) {
      this.missing.delete(key);
      this.found.set(key, value, this.ttlOf ? { ttl: this.ttlOf(value) } : undefined);
    }
  }
}

/** What a service needs of a cache to keep it coherent after a write. */
export interface Invalidator {
  invalidate(keys: readonly string[]): Promise<void>;
}

/** What a writer needs of a cache to hand what it has just written to the other processes. */
export interface Sharer<V> {
  share(key: string, value: V): Promise<void>;
}

/** What a service needs of a cache to also hand it the record it has just written. */
export interface Primable<V> extends Invalidator {
  prime(key: string, value: V): void;
}

/** The bus's cache of that name, made with these options on first use. */
export function sharedCache<V extends object>(
  bus: CacheBus,
  options: SharedCacheOptions<V>,
): SharedCache<V> {
  return (
    (bus.member(options.name) as SharedCache<V> | undefined) ?? new SharedCache<V>(bus, options)
  );
}
