import type { RedisClient } from './shared/infra/redis-connections';
import type { Config } from './config';
import type { Clock } from './shared/cache/cache-bus';
import type { DomainResolver } from './domains/domain-check';
import type { ImportQueue } from './imports/imports.jobs';
import type { QrRenderQueue } from './qr-codes/qr-codes.jobs';
import type { Logger } from './shared/infra/logger';
import type { RedisKeys } from './shared/infra/redis-keys';
import type { Visits } from './visits/visit-recorder';
import type { WebhookEvents } from './webhooks/webhooks.jobs';

/** Everything a request handler may reach; built in main.ts (or by the tests) and passed down. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  keys: RedisKeys;
  /** Records link clicks and QR scans; reads their statistics. */
  visits: Visits;
  /** DNS lookups for the branded-domain check; the system resolver when absent. */
  domainResolver?: DomainResolver;
  /** Producer of QR render jobs (the worker process consumes them). */
  qrQueue: QrRenderQueue;
  /**
   * Producer of import jobs (the worker runs them); one on `redis` when absent (tests). The API
   * passes one on the queues' connection: BullMQ's scripts on `redis` would be copied onto every
   * auto-pipeline of the redirects.
   */
  importQueue?: ImportQueue;
  /** The clock of the in-process caches' TTLs; the system's unless a test sets one. */
  cacheClock?: Clock;
  /** Queues webhook deliveries of link events (the worker delivers them); absent: none are sent. */
  webhooks?: WebhookEvents;
  /** Signs dashboard session cookies (see dashboard/session-secret.ts); random per app if absent. */
  sessionSecret?: string;
}
