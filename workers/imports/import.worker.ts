import { Worker } from 'bullmq';
import type { Config } from '../../src/config';
import { campaignCacheFor } from '../../src/campaigns/campaign-cache';
import { domainCacheFor } from '../../src/domains/domain-cache';
import {
  domainVerifier,
  systemResolver,
  type DomainResolver,
} from '../../src/domains/domain-check';
import { IMPORT_QUEUE, type ImportJobData } from '../../src/imports/imports.jobs';
import { linkCacheFor } from '../../src/links/link-cache';
import { bullPrefix, createQrRenderQueue } from '../../src/qr-codes/qr-codes.jobs';
import { qrLookupCacheFor } from '../../src/qr-codes/qr-lookup-cache';
import type { Logger } from '../../src/shared/infra/logger';
import { createRedisClient, redisAnswers } from '../../src/shared/infra/redis-connections';
import type { RedisKeys } from '../../src/shared/infra/redis-keys';
import { webhookSubscribersFor } from '../../src/webhooks/webhook-subscribers';
import { runImport } from './import.processor';

/** Runs import jobs one at a time per worker process (each is long and mostly waits on I/O). */
export function startImportWorker(options: {
  config: Config;
  logger: Logger;
  keys: RedisKeys;
  /** DNS for the branded-domain checks (tests pass a fake zone). */
  resolver?: DomainResolver;
}) {
  const { config, logger, keys } = options;
  // New links drop cached "unknown alias" answers in every API process (see link-cache.ts).
  const cacheRedis = createRedisClient(config.redis, 'request');
  cacheRedis.on('error', (err: Error) =>
    logger.warn({ err: err.message }, 'redis connection error'),
  );
  const cache = linkCacheFor({ redis: cacheRedis, keys, logger });
  // Imported QR codes are rendered by the render worker, queued as the API queues them.
  const queueRedis = createRedisClient(config.redis, 'queue');
  queueRedis.on('error', (err: Error) =>
    logger.warn({ err: err.message }, 'redis connection error'),
  );
  const qrQueue = createQrRenderQueue({ connection: queueRedis, keys, logger });
  const qr = {
    publicUrl: config.publicUrl,
    logo: { logoDir: config.logoDir, allowPrivate: config.logoAllowPrivate },
    queue: qrQueue,
    logger,
    lookups: qrLookupCacheFor({ redis: cacheRedis, keys, logger }),
  };
  const deps = {
    cache,
    campaignSlugs: campaignCacheFor({ redis: cacheRedis, keys, logger }),
    plans: config.plans,
    logger,
    secretKey: config.webhookSecretKey,
    http: { policy: { allowPrivate: config.importAllowPrivate } },
    qr,
    locks: { redis: cacheRedis, keys },
    webhooks: {
      secretKey: config.webhookSecretKey,
      // The same policy as `POST /api/webhook/add` (webhooks.routes.ts).
      policy: { allowPrivate: config.webhookAllowPrivate || config.logoAllowPrivate },
      // A new webhook may be the first subscriber of its events: every process asks again.
      subscribers: webhookSubscribersFor({ redis: cacheRedis, keys, logger }),
    },
    domains: {
      // The same checks as `POST /api/domain/add` (domains.routes.ts).
      verify: domainVerifier(config, options.resolver ?? systemResolver()),
      hosts: domainCacheFor({ redis: cacheRedis, keys, logger }),
      ownership: { domainCheck: config.domainCheck, recheckMs: config.domainRecheckMs },
    },
  };
  const connection = createRedisClient(config.redis, 'blocking');
  connection.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const worker = new Worker<ImportJobData>(IMPORT_QUEUE, (job) => runImport(job.data, deps), {
    connection,
    prefix: bullPrefix(keys),
    concurrency: 1,
  });
  worker.on('error', (err) => logger.warn({ err: err.message }, 'import worker error'));
  return {
    close: async () => {
      // Redis away: at once (see closeRedisClient in redis-connections.ts).
      await worker.close(!(await redisAnswers(connection)));
      connection.disconnect();
      await qrQueue.close();
      queueRedis.disconnect();
      cacheRedis.disconnect();
    },
  };
}
