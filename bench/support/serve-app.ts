import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { createApp as CreateApp } from '../../src/app';
import type { loadConfig as LoadConfig } from '../../src/config';
import type { createQrRenderQueue as CreateQrRenderQueue } from '../../src/qr-codes/qr-codes.jobs';
import type { createLogger as CreateLogger } from '../../src/shared/infra/logger';
import type { connectMongo as ConnectMongo } from '../../src/shared/infra/mongo';
import type {
  createRedisClient as CreateRedisClient,
  RedisClient,
  waitForRedis as WaitForRedis,
} from '../../src/shared/infra/redis-connections';
import type { RedisKeys as RedisKeysClass } from '../../src/shared/infra/redis-keys';
import type { createVisits as CreateVisits } from '../../src/visits/visit-recorder';

/**
 * Serves the app of the source tree given as the first argument (this checkout, or an older
 * commit unpacked by a benchmark as its baseline) on a free port, and tells the parent the port.
 * It loads that tree's modules, so both sides of a comparison run their own code.
 */
async function main(): Promise<void> {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..'));
  const requireFrom = createRequire(path.join(root, 'package.json'));
  const load = <T>(module: string): T => requireFrom(path.join(root, 'src', module)) as T;
  const { createApp } = load<{ createApp: typeof CreateApp }>('app');
  const { loadConfig } = load<{ loadConfig: typeof LoadConfig }>('config');
  const { createQrRenderQueue } = load<{ createQrRenderQueue: typeof CreateQrRenderQueue }>(
    'qr-codes/qr-codes.jobs',
  );
  const { createLogger } = load<{ createLogger: typeof CreateLogger }>('shared/infra/logger');
  const { connectMongo } = load<{ connectMongo: typeof ConnectMongo }>('shared/infra/mongo');
  // Older trees made connections in shared/infra/redis, from a URL only.
  const hasConnections = (() => {
    try {
      requireFrom.resolve(path.join(root, 'src', 'shared/infra/redis-connections'));
      return true;
    } catch {
      return false;
    }
  })();
  const connections = hasConnections
    ? load<{ createRedisClient: typeof CreateRedisClient; waitForRedis: typeof WaitForRedis }>(
        'shared/infra/redis-connections',
      )
    : undefined;
  const { RedisKeys } = load<{ RedisKeys: typeof RedisKeysClass }>('shared/infra/redis-keys');
  // Older trees (the benchmarks' baselines) kept the click pipeline under shared/.
  const visitsModule = ['visits/visit-recorder', 'shared/visits/visit-recorder'].find((m) => {
    try {
      requireFrom.resolve(path.join(root, 'src', m));
      return true;
    } catch {
      return false;
    }
  });
  const { createVisits } = load<{ createVisits: typeof CreateVisits }>(
    visitsModule ?? 'visits/visit-recorder',
  );

  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, 'linkqr-bench-api');
  await connectMongo(process.env.MONGODB_URI as string, config.mongodbDbName);
  let redis: RedisClient;
  if (connections) {
    redis = connections.createRedisClient(config.redis, 'request');
    await connections.waitForRedis(redis);
  } else {
    const legacy = load<{
      createRedis(url: string): RedisClient;
      waitForRedis(redis: RedisClient): Promise<void>;
    }>('shared/infra/redis');
    redis = legacy.createRedis(config.redisUrl);
    await legacy.waitForRedis(redis);
  }
  const keys = new RedisKeys(config.redisPrefix);
  const visits = createVisits({
    redis,
    keys,
    logger,
    salt: 'bench-salt',
    countryHeader: undefined,
    partitions: config.visitStreamPartitions,
  });
  const qrQueue = createQrRenderQueue({ connection: redis, keys, logger });
  const app = createApp({ config, logger, redis, keys, visits, qrQueue });
  const server = http.createServer(app);
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error('bench app failed:', err);
  process.exit(1);
});
