import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/shared/infra/logger';
import { connectMongo } from '../../src/shared/infra/mongo';
import { standaloneRedis } from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { VisitDrainer } from '../../src/visits/visit-drainer';

/** The worker's visit drainer on its own, for benchmarks that charge each click its drain. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  await connectMongo(process.env.MONGODB_URI as string, config.mongodbDbName);
  const drainer = new VisitDrainer({
    redis: standaloneRedis(config.redisUrl, 'blocking'),
    keys: new RedisKeys(config.redisPrefix),
    logger: createLogger('warn', 'linkqr-bench-drainer'),
  });
  drainer.start();
  process.send?.({ port: 0 });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error('bench drainer failed:', err);
  process.exit(1);
});
