import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisKeys } from '../shared/infra/redis-keys';

export interface PasswordGuardLimits {
  /** Wrong passwords one client may send for one link per window. */
  perClient: number;
  /** Wrong passwords for one link from everyone per window (slows a distributed guess). */
  perLink: number;
  windowSeconds: number;
}

export const DEFAULT_PASSWORD_LIMITS: PasswordGuardLimits = {
  perClient: 10,
  perLink: 100,
  windowSeconds: 15 * 60,
};

/**
 * Counts wrong link passwords in Redis, shared by every API process. Each failure restarts the
 * window, so a client that keeps guessing stays locked out. Client addresses are hashed.
 */
export class PasswordGuard {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly salt: string,
    private readonly limits: PasswordGuardLimits = DEFAULT_PASSWORD_LIMITS,
  ) {}

  private keysFor(linkId: number, ip: string): [string, string] {
    const client = createHash('sha256').update(`${this.salt}:${ip}`).digest('hex').slice(0, 32);
    return [
      this.keys.key('links', 'pw', linkId, 'ip', client),
      this.keys.key('links', 'pw', linkId, 'all'),
    ];
  }

  /** Seconds until the client may try again, or 0 when it may try now. */
  async retryAfter(linkId: number, ip: string): Promise<number> {
    const [clientKey, linkKey] = this.keysFor(linkId, ip);
    const [client, all] = await this.redis.mget(clientKey, linkKey);
    const blocking =
      Number(client ?? 0) >= this.limits.perClient
        ? clientKey
        : Number(all ?? 0) >= this.limits.perLink
          ? linkKey
          : undefined;
    if (!blocking) return 0;
    const ttl = await this.redis.ttl(blocking);
    return ttl > 0 ? ttl : this.limits.windowSeconds;
  }

  async failed(linkId: number, ip: string): Promise<void> {
    const [clientKey, linkKey] = this.keysFor(linkId, ip);
    const window = this.limits.windowSeconds;
    await this.redis
      .multi()
      .incr(clientKey)
      .expire(clientKey, window)
      .incr(linkKey)
      .expire(linkKey, window)
      .exec();
  }

  async succeeded(linkId: number, ip: string): Promise<void> {
    const [clientKey] = this.keysFor(linkId, ip);
    await this.redis.del(clientKey);
  }
}
