import { loadConfig } from '../src/config';
import { openDatabase } from '../src/shared/infra/database';
import { createLogger } from '../src/shared/infra/logger';
import { createRedis, createWorkerRedis } from '../src/shared/infra/redis';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { onShutdown } from '../src/shared/infra/shutdown';
import { VisitDrainer } from '../src/shared/visits/visit-drainer';
import { startQrRenderWorker } from './qr-render/qr-render.worker';
import { createWorkerMetrics } from './worker-metrics';
import { startWorkerServer } from './worker-server';

/** The worker process: config -> connections -> workers -> graceful shutdown. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, 'linkqr-worker');
  const database = await openDatabase(config, logger, 'shared');
  const redis = createWorkerRedis(config.redisUrl);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const keys = new RedisKeys(config.redisPrefix);
  const drainer = new VisitDrainer({ redis, keys, logger });
  drainer.start();
  // The render worker opens its own connections: the drainer blocks on this one.
  const metrics = createWorkerMetrics();
  // The drainer blocks on its connection: the health check pings on one of its own.
  const probe = createRedis(config.redisUrl);
  probe.on('error', () => undefined);
  const qrWorker = startQrRenderWorker({ config, logger, keys, observer: metrics.qrRenders });
  const server = await startWorkerServer({
    port: config.workerPort,
    metrics,
    metricsToken: config.metricsToken,
    redis: probe,
    rendering: () => qrWorker.isRunning(),
  });
  logger.info({ port: server.port }, 'linkqr worker started');
  onShutdown(logger, config.shutdownTimeoutMs, [
    () => server.close(),
    () => qrWorker.close(),
    () => drainer.stop(),
    () => probe.quit(),
    () => redis.quit(),
    () => database.close(),
  ]);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `linkqr worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
