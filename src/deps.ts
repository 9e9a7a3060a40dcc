import type { Redis } from 'ioredis';
import type { Config } from './config';
import type { DomainResolver } from './domains/domain-check';
import type { Logger } from './shared/infra/logger';
import type { RedisKeys } from './shared/infra/redis-keys';

/** Everything a request handler may reach; built in main.ts (or by the tests) and passed down. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  redis: Redis;
  keys: RedisKeys;
  /** DNS lookups for the branded-domain check; the system resolver when absent. */
  domainResolver?: DomainResolver;
}
