import { createQrRenderQueue } from '../src/qr-codes/qr-codes.jobs';
import { openDatabase } from '../src/shared/infra/database';
import { createLogger, resolveLogFormat } from '../src/shared/infra/logger';
import { loadProcessConfig, logRuntimeSecrets } from '../src/shared/infra/process-config';
import { closeRedisClient, createRedisClient } from '../src/shared/infra/redis-connections';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { onShutdown } from '../src/shared/infra/shutdown';
import { userDeletionContextFor } from '../src/users/user-deletion';
import { VisitDrainer } from '../src/visits/visit-drainer';
import { keepVisitPartitions } from '../src/visits/visit-partitions';
import { deleteVisits } from '../src/visits/visits.service';
import { clicksWebhookHook } from '../src/webhooks/webhook-clicks';
import { createWebhookEvents } from '../src/webhooks/webhooks.jobs';
import { startImportWorker } from './imports/import.worker';
import { startLinkChecks } from './link-checks/link-check.worker';
import { startQrRenderWorker } from './qr-render/qr-render.worker';
import { startDomainRecheck } from './domain-recheck';
import { startRetention } from './retention';
import { startWebhookWorker } from './webhooks/webhook-delivery.worker';
import { createWorkerMetrics } from './worker-metrics';
import { startWorkerServer } from './worker-server';

/** The worker process: config -> connections -> workers -> graceful shutdown. */
async function main(): Promise<void> {
  const { config, secrets } = loadProcessConfig(process.env);
  const logger = createLogger(
    config.logLevel,
    'linkqr-worker',
    undefined,
    resolveLogFormat(config.newcomer.logFormat),
  );
  logRuntimeSecrets(logger, secrets);
  const database = await openDatabase(config, logger, 'shared');
  const redis = createRedisClient(config.redis, 'blocking');
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  const keys = new RedisKeys(config.redisPrefix);
  // Events are queued on a connection of their own: the drainer blocks on `redis`.
  const eventsRedis = createRedisClient(config.redis, 'blocking');
  eventsRedis.on('error', (err: Error) =>
    logger.warn({ err: err.message }, 'redis connection error'),
  );
  const events = createWebhookEvents({
    connection: eventsRedis,
    keys,
    logger,
    retryDelayMs: config.webhookRetryDelayMs,
    attempts: config.webhookAttempts,
  });
  const drainer = new VisitDrainer({
    redis,
    keys,
    logger,
    lingerMs: config.visitDrainLingerMs,
    partitions: config.visitStreamPartitions,
    onApplied: clicksWebhookHook(events, logger),
  });
  drainer.start();
  // On the events connection: the drainer blocks on `redis`.
  const stopPartitionWatch = keepVisitPartitions({ redis: eventsRedis, keys, logger }, drainer);
  const metrics = createWorkerMetrics();
  // The drainer blocks on its connection: the health check pings on one of its own.
  const probe = createRedisClient(config.redis, 'probe');
  probe.on('error', () => undefined);
  // The render and webhook workers open their own connections.
  const qrWorker = startQrRenderWorker({
    config,
    logger,
    keys,
    observer: metrics.qrRenders,
    events,
  });
  const webhookWorker = startWebhookWorker({
    config,
    logger,
    keys,
    observer: metrics.webhookDeliveries,
  });
  const importWorker = startImportWorker({ config, logger, keys });
  // Finishing a user deletion that stopped halfway goes through the same services as the API;
  // on the events connection, since the drainer blocks on `redis`.
  const qrQueue = createQrRenderQueue({ connection: eventsRedis, keys, logger });
  const retention = startRetention({
    visitRetentionDays: config.visitRetentionDays,
    logger,
    userDeletions: userDeletionContextFor({
      config,
      redis: eventsRedis,
      keys,
      logger,
      qrQueue,
      visits: { deleteVisits: (target) => deleteVisits(target, eventsRedis, keys) },
    }),
  });
  const domainRecheck = startDomainRecheck({ config, logger, redis: eventsRedis, keys, events });
  // On the events connection too: the lock and the link cache's invalidations are plain commands.
  const linkChecks = startLinkChecks({ config, logger, redis: eventsRedis, keys, events });
  const server = await startWorkerServer({
    port: config.workerPort,
    host: config.workerHost,
    metrics,
    metricsToken: config.metricsToken,
    redis: probe,
    rendering: () => qrWorker.isRunning(),
  });
  logger.info({ port: server.port }, 'linkqr worker started');
  onShutdown(logger, config.shutdownTimeoutMs, [
    () => server.close(),
    () => qrWorker.close(),
    () => webhookWorker.close(),
    () => importWorker.close(),
    async () => stopPartitionWatch(),
    () => drainer.stop(),
    async () => retention.stop(),
    async () => domainRecheck.stop(),
    async () => linkChecks.stop(),
    () => qrQueue.close(),
    () => events.close(),
    () => closeRedisClient(eventsRedis),
    () => closeRedisClient(probe),
    () => closeRedisClient(redis),
    () => database.close(),
  ]);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `linkqr worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
