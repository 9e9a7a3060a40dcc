import type { Redis } from 'ioredis';
import type { Config } from './config';
import type { QrRenderQueue } from './qr-codes/qr-codes.jobs';
import type { Logger } from './shared/infra/logger';
import type { RedisKeys } from './shared/infra/redis-keys';

/** Everything a request handler may reach; built in main.ts (or by the tests) and passed down. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  redis: Redis;
  keys: RedisKeys;
  /** Producer of QR render jobs (the worker process consumes them). */
  qrQueue: QrRenderQueue;
}
