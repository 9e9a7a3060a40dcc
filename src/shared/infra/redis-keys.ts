/** Builds every Redis key name the service uses, under one configurable prefix. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  rateLimit(): string {
    return `${this.prefix}rl:`;
  }

  key(...parts: Array<string | number>): string {
    return `${this.prefix}${parts.join(':')}`;
  }
}
