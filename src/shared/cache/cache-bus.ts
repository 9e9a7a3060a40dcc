import { randomUUID } from 'node:crypto';
import { duplicateRedisClient, type RedisClient } from '../infra/redis-connections';
import type { Logger } from '../infra/logger';
import type { RedisKeys } from '../infra/redis-keys';

/** What the bus needs of a cache: drop some keys, or everything; take a value another shared. */
export interface BusMember {
  readonly name: string;
  forget(keys: readonly string[]): void;
  forgetAll(): void;
  accept?(key: string, encoded: string): void;
}

/**
 * One Redis pub/sub channel that keeps every process's in-memory caches coherent: a write
 * publishes the cache name and the keys it changed, and each process drops them. Pub/sub loses
 * messages while a subscriber is disconnected, so caches serve entries only while the
 * subscription is live, and everything is dropped when it comes back.
 */
export interface Clock {
  now(): number;
}

/** Starts the key that ends a message with the publishing bus's identity. */
const ORIGIN_PREFIX = '\u0000bus:';
/**
 * Marks a message that hands a value over: `[name, VALUE_MARK, key, encoded, origin]`. A process
 * that does not know the convention reads it as an invalidation and merely drops the key.
 */
const VALUE_MARK = '\u0000value';

export class CacheBus {
  private readonly members = new Map<string, BusMember>();
  private subscriber: RedisClient | undefined;
  private liveWaiters: Array<() => void> = [];
  /**
   * Ends every message this bus publishes, to recognise its own echo. A key no cache holds, so
   * a process that does not know the convention merely drops one key too many.
   */
  private readonly origin = `${ORIGIN_PREFIX}${randomUUID()}`;
  /** How every message this bus publishes ends, as sent. */
  private readonly echoTail = `${JSON.stringify(this.origin)}]`;
  /** True while invalidations from other processes are being received. */
  live = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly channel: string,
    private readonly logger: Logger,
    /** What the caches measure their TTLs on (the system clock unless a test sets one). */
    readonly clock?: Clock,
  ) {}

  join(member: BusMember): void {
    if (this.members.has(member.name)) throw new Error(`cache ${member.name} exists already`);
    this.members.set(member.name, member);
  }

  member(name: string): BusMember | undefined {
    return this.members.get(name);
  }

  /** Tells every process, this one included, to drop these keys of that cache. */
  async publish(name: string, keys: readonly string[]): Promise<void> {
    this.members.get(name)?.forget(keys);
    if (keys.length === 0) return;
    try {
      await this.redis.publish(this.channel, JSON.stringify([name, ...keys, this.origin]));
    } catch (err) {
      // The other processes then see the change when their TTL runs out.
      this.logger.warn({ err: (err as Error).message, cache: name }, 'invalidation not published');
    }
  }

  /** Hands a value of that cache's key to the other processes (this one keeps nothing). */
  async publishValue(name: string, key: string, encoded: string): Promise<void> {
    try {
      await this.redis.publish(
        this.channel,
        JSON.stringify([name, VALUE_MARK, key, encoded, this.origin]),
      );
    } catch (err) {
      // The others then load it when first asked, as they would have without the hand-over.
      this.logger.warn({ err: (err as Error).message, cache: name }, 'value not published');
    }
  }

  /** Tells every process, this one included, to drop everything that cache holds. */
  async publishAll(name: string): Promise<void> {
    this.members.get(name)?.forgetAll();
    try {
      // No keys between the name and the origin: `publish` never sends that, it returns early.
      await this.redis.publish(this.channel, JSON.stringify([name, this.origin]));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, cache: name }, 'invalidation not published');
    }
  }

  /** Resolves once invalidations from other processes are being received (tests and bench). */
  whenLive(): Promise<void> {
    this.start();
    if (this.live) return Promise.resolve();
    return new Promise((resolve) => this.liveWaiters.push(resolve));
  }

  /** Subscribes on first use, so building the app does no I/O. */
  start(): void {
    if (this.subscriber) return;
    const sub = duplicateRedisClient(this.redis, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      autoResubscribe: false,
      lazyConnect: false,
    });
    this.subscriber = sub;
    sub.on('error', (err: Error) =>
      this.logger.debug({ err: err.message }, 'cache subscriber error'),
    );
    sub.on('close', () => {
      this.live = false;
    });
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => {
          for (const member of this.members.values()) member.forgetAll();
          this.live = true;
          for (const resolve of this.liveWaiters.splice(0)) resolve();
        },
        (err: Error) => this.logger.warn({ err: err.message }, 'cache subscribe failed'),
      );
    });
    sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.receive(message);
    });
    // The subscriber lives exactly as long as the connection it was duplicated from.
    this.redis.once('end', () => sub.disconnect());
  }

  /**
   * Whether a message can be skipped unparsed: this bus's own echo, or one naming a cache this
   * process does not hold (a render's images, about 5 KB each, reach the worker too).
   */
  private ignorable(message: string): boolean {
    if (message.endsWith(this.echoTail)) return true;
    const end = message.indexOf('",', 2);
    if (!message.startsWith('["') || end < 0) return false;
    const name = message.slice(2, end);
    return !name.includes('\\') && !this.members.has(name);
  }

  private receive(message: string): void {
    if (this.ignorable(message)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) {
      this.logger.warn('malformed cache invalidation ignored');
      return;
    }
    const [name, ...keys] = parsed as string[];
    if (name === undefined) return;
    // This process dropped the keys when it published them; its own echo would only undo what
    // it did after its write (a record primed, loads that read the new state).
    const origin = keys.at(-1)?.startsWith(ORIGIN_PREFIX) ? keys.pop() : undefined;
    if (origin === this.origin) return;
    if (keys[0] === VALUE_MARK) {
      const [, key, encoded] = keys;
      if (keys.length === 3 && key !== undefined && encoded !== undefined) {
        this.members.get(name)?.accept?.(key, encoded);
      }
      return;
    }
    if (keys.length === 0) this.members.get(name)?.forgetAll();
    else this.members.get(name)?.forget(keys);
  }
}

const buses = new WeakMap<RedisClient, CacheBus>();

/** The bus of a process (keyed by its Redis connection, whose lifetime it shares). */
export function cacheBusFor(deps: {
  redis: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  cacheClock?: Clock;
}): CacheBus {
  let bus = buses.get(deps.redis);
  if (!bus) {
    const channel = deps.keys.key('cache', 'invalidate');
    bus = new CacheBus(deps.redis, channel, deps.logger, deps.cacheClock);
    buses.set(deps.redis, bus);
  }
  return bus;
}
