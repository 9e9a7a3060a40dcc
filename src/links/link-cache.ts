import type { Redis } from 'ioredis';
import type { AppDeps } from '../deps';
import type { Logger } from '../shared/infra/logger';

/** What the redirect needs to answer a visitor, without touching MongoDB. */
export interface LinkTarget {
  id: number;
  url: string;
  /** Epoch milliseconds, or null when the link never expires. */
  expiresAt: number | null;
  passwordHash: string | null;
}

interface Entry {
  /** null caches "no such alias", so a flood of unknown aliases does not reach MongoDB either. */
  target: LinkTarget | null;
  storedAt: number;
}

export interface LinkCacheOptions {
  ttlMs?: number;
  /**
   * For "no such alias". Short, because one change is not published: deleting a branded domain
   * lets its links answer on PUBLIC_URL, within the same bound as the domains' own host cache.
   */
  negativeTtlMs?: number;
  maxEntries?: number;
}

/** Cache key of an alias on a domain (0 is PUBLIC_URL). */
export function linkCacheKey(domainId: number, alias: string): string {
  return `${domainId}:${alias}`;
}

/**
 * In-process cache of resolved aliases, kept coherent across API processes by a Redis pub/sub
 * channel: every write publishes the keys it changed and each process drops them. Pub/sub loses
 * messages while a subscriber is disconnected, so entries are served past their TTL while it is
 * away (stale beats a stalled redirect), and everything is dropped when it comes back. The TTL is a safety net, not the
 * mechanism: a change is visible at once in the writing process and within a message's delivery
 * time in the others.
 */
export class LinkCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<LinkTarget | null>>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  private subscriber: Redis | undefined;
  private live = false;
  /** Bumped by every invalidation, so a load that overlapped one is never stored. */
  private generation = 0;
  private liveWaiters: Array<() => void> = [];

  constructor(
    private readonly redis: Redis,
    private readonly channel: string,
    private readonly logger: Logger,
    options: LinkCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 50_000;
  }

  /**
   * The cached answer without waiting (the redirect's fast path): a target, null for "no such
   * alias", or undefined when it must be loaded.
   */
  peek(key: string): LinkTarget | null | undefined {
    this.start();
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    // While Redis is away no invalidation can arrive anyway: serve what we have, however old,
    // rather than send every visitor to MongoDB. Everything is dropped when it comes back.
    if (!this.live) return hit.target;
    if (Date.now() - hit.storedAt < this.ttlOf(hit)) return hit.target;
    this.entries.delete(key);
    return undefined;
  }

  /** The cached target, or loads it once however many requests ask at the same moment. */
  async resolve(key: string, load: () => Promise<LinkTarget | null>): Promise<LinkTarget | null> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const wasLive = this.live;
    const promise: Promise<LinkTarget | null> = load().finally(() => {
      if (this.loading.get(key) === promise) this.loading.delete(key);
    });
    this.loading.set(key, promise);
    const target = await promise;
    // A load that overlapped an invalidation or a reconnect may hold the old record: not stored.
    if (wasLive && this.live && generation === this.generation) this.store(key, target);
    return target;
  }

  /** Drops the keys here at once and tells every other process to drop them too. */
  async invalidate(keys: string[]): Promise<void> {
    for (const key of keys) this.forget(key);
    try {
      await this.redis.publish(this.channel, keys.join(' '));
    } catch (err) {
      // The other processes then see the change when their TTL runs out.
      this.logger.warn({ err: (err as Error).message }, 'link cache invalidation not published');
    }
  }

  /** Resolves once invalidations from other processes are being received (tests and bench). */
  whenLive(): Promise<void> {
    this.start();
    if (this.live) return Promise.resolve();
    return new Promise((resolve) => this.liveWaiters.push(resolve));
  }

  /** False while Redis is away: entries are then served past their TTL. */
  get receivingInvalidations(): boolean {
    return this.live;
  }

  get size(): number {
    return this.entries.size;
  }

  private ttlOf(entry: Entry): number {
    return entry.target ? this.ttlMs : this.negativeTtlMs;
  }

  private forget(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  private store(key: string, target: LinkTarget | null): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { target, storedAt: Date.now() });
  }

  /** Subscribes on first use, so building the app does no I/O. */
  private start(): void {
    if (this.subscriber) return;
    const sub = this.redis.duplicate({
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      autoResubscribe: false,
    });
    this.subscriber = sub;
    sub.on('error', (err: Error) =>
      this.logger.debug({ err: err.message }, 'link cache subscriber error'),
    );
    sub.on('close', () => {
      this.live = false;
    });
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => {
          this.generation += 1;
          this.entries.clear();
          this.live = true;
          for (const resolve of this.liveWaiters.splice(0)) resolve();
        },
        (err: Error) => this.logger.warn({ err: err.message }, 'link cache subscribe failed'),
      );
    });
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      for (const key of message.split(' ')) this.forget(key);
    });
    // The subscriber lives exactly as long as the app's own Redis connection.
    this.redis.once('end', () => sub.disconnect());
  }
}

const caches = new WeakMap<Redis, LinkCache>();

/** The one cache of an app (keyed by its Redis connection, whose lifetime it shares). */
export function linkCacheFor(deps: Pick<AppDeps, 'redis' | 'keys' | 'logger'>): LinkCache {
  let cache = caches.get(deps.redis);
  if (!cache) {
    cache = new LinkCache(deps.redis, deps.keys.key('links', 'invalidate'), deps.logger);
    caches.set(deps.redis, cache);
  }
  return cache;
}
