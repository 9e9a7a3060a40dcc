/**
 * Builds every Redis key name the service uses, under one configurable prefix. On a Redis Cluster
 * a command or script that touches several keys needs them in one hash slot: such keys are built
 * with `slotted`, whose `{tag}` (the only part a cluster hashes) they share.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** The rate limiter's prefix; each of its counters is one key used alone. */
  rateLimit(): string {
    return `${this.prefix}rl:`;
  }

  /** The public routes' per-address limiter's prefix (issue 29, L3). */
  publicRateLimit(): string {
    return `${this.prefix}public-rl:`;
  }

  key(...parts: Array<string | number>): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  /** A key in the hash slot of `tag`: every key built with the same tag lands on one node. */
  slotted(tag: string, ...parts: Array<string | number>): string {
    const rest = parts.length ? `:${parts.join(':')}` : '';
    return `${this.prefix}{${tag}}${rest}`;
  }
}
