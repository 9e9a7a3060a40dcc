import { createApp } from './app';
import { loadSessionSecret } from './dashboard/session-secret';
import { openDatabase } from './shared/infra/database';
import { createLogger, resolveLogFormat } from './shared/infra/logger';
import { loadProcessConfig, logRuntimeSecrets } from './shared/infra/process-config';
import {
  closeRedisClient,
  createRedisClient,
  waitForRedis,
} from './shared/infra/redis-connections';
import { RedisKeys } from './shared/infra/redis-keys';
import { workerReady } from './shared/infra/launcher-signals';
import { onShutdown } from './shared/infra/shutdown';
import { createImportQueue } from './imports/imports.jobs';
import { createQrRenderQueue } from './qr-codes/qr-codes.jobs';
import { listen } from './server';
import { recordVisitPartitions } from './visits/visit-partitions';
import { createVisits } from './visits/visit-recorder';
import { loadVisitorSalt } from './visits/visit-salt';
import { createWebhookEvents } from './webhooks/webhooks.jobs';
import { reportWebhookKey } from './webhooks/webhook-key-check';

/** The API process: config -> connections -> app -> listen -> graceful shutdown. */
export async function main(): Promise<void> {
  const worker = workerReady();
  const { config, secrets } = loadProcessConfig(process.env);
  const logger = createLogger(
    config.logLevel,
    'linkqr-api',
    undefined,
    resolveLogFormat(config.newcomer.logFormat),
  );
  logRuntimeSecrets(logger, secrets);
  const database = await openDatabase(config, logger);
  await reportWebhookKey(config, logger);
  const redis = createRedisClient(config.redis, 'request');
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  await waitForRedis(redis);

  const keys = new RedisKeys(config.redisPrefix);
  // A mismatch is logged as an error there; the API still starts (its clicks are drained by a
  // worker that widens to the recorded count).
  await recordVisitPartitions({ redis, keys, logger }, config.visitStreamPartitions, 'api').catch(
    (err: unknown) =>
      logger.warn({ err: (err as Error).message }, 'VISIT_STREAM_PARTITIONS not compared'),
  );
  const salt = await loadVisitorSalt(config.visitorSalt);
  const visits = createVisits({
    redis,
    keys,
    logger,
    salt,
    countryHeader: config.countryHeader,
    partitions: config.visitStreamPartitions,
  });
  // BullMQ defines its ~60 scripts on the connection it is given, and ioredis copies every one onto
  // each auto-pipeline: on the clicks' connection that was a 142-property object per event-loop
  // turn of redirects. The queues get a connection of their own (same fail-fast options), without
  // auto-pipelining, so a job added is not a pipeline carrying those scripts either.
  const queues = createRedisClient(config.redis, 'queue');
  queues.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  await waitForRedis(queues);
  const qrQueue = createQrRenderQueue({ connection: queues, keys, logger });
  // Made here for the same reason: left to the routes, the import queue was created on the
  // clicks' connection, and every auto-pipeline of a redirect copied its scripts again.
  const importQueue = createImportQueue({ connection: queues, keys, logger });
  const webhooks = createWebhookEvents({
    connection: queues,
    keys,
    logger,
    retryDelayMs: config.webhookRetryDelayMs,
    attempts: config.webhookAttempts,
  });
  const sessionSecret = await loadSessionSecret(config.dashboard.sessionSecret);
  const app = createApp({
    config,
    logger,
    redis,
    keys,
    visits,
    qrQueue,
    importQueue,
    webhooks,
    sessionSecret,
  });
  // Under `npm start`: listening (and so /readyz) waits until the worker's render threads are warm.
  await worker;
  const server = await listen(app, config.port);
  logger.info({ port: server.port, publicUrl: config.publicUrl }, 'linkqr API listening');
  // Under `npm start`, the launcher greets the newcomer once the API answers.
  process.send?.({ linkqr: 'listening', port: server.port });

  onShutdown(logger, config.shutdownTimeoutMs, [
    () => server.close(),
    () => visits.close(),
    () => qrQueue.close(),
    () => importQueue.close(),
    () => webhooks.close(),
    () => closeRedisClient(queues),
    () => closeRedisClient(redis),
    () => database.close(),
  ]);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(
      `linkqr API failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
}
