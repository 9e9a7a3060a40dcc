import { createApp } from './app';
import { loadSessionSecret } from './dashboard/session-secret';
import { loadConfig } from './config';
import { openDatabase } from './shared/infra/database';
import { createLogger } from './shared/infra/logger';
import { createRedis, waitForRedis } from './shared/infra/redis';
import { RedisKeys } from './shared/infra/redis-keys';
import { onShutdown } from './shared/infra/shutdown';
import { createQrRenderQueue } from './qr-codes/qr-codes.jobs';
import { listen } from './server';
import { createVisits } from './shared/visits/visit-recorder';
import { loadVisitorSalt } from './shared/visits/visit-salt';
import { createWebhookEvents } from './webhooks/webhooks.jobs';

/** The API process: config -> connections -> app -> listen -> graceful shutdown. */
export async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, 'linkqr-api');
  const database = await openDatabase(config, logger);
  const redis = createRedis(config.redisUrl);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  await waitForRedis(redis);

  const keys = new RedisKeys(config.redisPrefix);
  const salt = await loadVisitorSalt(config.visitorSalt);
  const visits = createVisits({ redis, keys, logger, salt, countryHeader: config.countryHeader });
  const qrQueue = createQrRenderQueue({ connection: redis, keys, logger });
  const webhooks = createWebhookEvents({
    connection: redis,
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
    webhooks,
    sessionSecret,
  });
  const server = await listen(app, config.port);
  logger.info({ port: server.port, publicUrl: config.publicUrl }, 'linkqr API listening');

  onShutdown(logger, config.shutdownTimeoutMs, [
    () => server.close(),
    () => visits.close(),
    () => qrQueue.close(),
    () => webhooks.close(),
    () => redis.quit(),
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
