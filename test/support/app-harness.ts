import { forgetDocumentOf } from './openapi-check';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { AppDeps } from '../../src/deps';
import { createQrRenderQueue } from '../../src/qr-codes/qr-codes.jobs';
import { createLogger } from '../../src/shared/infra/logger';
import {
  createRedisClient,
  waitForRedis,
  type RedisClient,
} from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { listen } from '../../src/server';
import { baseEnv } from './environment';
import { createVisits } from '../../src/visits/visit-recorder';
import { createWebhookEvents } from '../../src/webhooks/webhooks.jobs';

export interface TestApp {
  url: string;
  config: Config;
  deps: AppDeps;
  close(): Promise<void>;
}

/** The real app on a free port, with real Redis and the test database; `env` overrides the config. */
export async function startTestApp(
  env: NodeJS.ProcessEnv = {},
  extra: Partial<AppDeps> = {},
): Promise<TestApp> {
  const config = loadConfig({ ...baseEnv(), ...env });
  const redis: RedisClient = extra.redis ?? createRedisClient(config.redis, 'request');
  redis.on('error', () => undefined);
  if (!extra.redis) await waitForRedis(redis);
  const logger = extra.logger ?? createLogger(config.logLevel);
  const keys = extra.keys ?? new RedisKeys(config.redisPrefix);
  const deps: AppDeps = {
    config,
    logger,
    redis,
    keys,
    visits: createVisits({
      redis,
      keys,
      logger,
      salt: 'test-visitor-salt',
      countryHeader: config.countryHeader,
      partitions: config.visitStreamPartitions,
    }),
    qrQueue: extra.qrQueue ?? createQrRenderQueue({ connection: redis, keys, logger }),
    webhooks:
      extra.webhooks ??
      createWebhookEvents({
        connection: redis,
        keys,
        logger,
        retryDelayMs: config.webhookRetryDelayMs,
        attempts: config.webhookAttempts,
        cacheClock: extra.cacheClock,
      }),
    ...extra,
  };
  // Test clients are never mid-request when a test closes its app: no grace to wait out.
  const server = await listen(createApp(deps), 0, '127.0.0.1', { idleGraceMs: 0 });
  return {
    url: `http://127.0.0.1:${server.port}`,
    config,
    deps,
    close: async () => {
      await server.close();
      forgetDocumentOf(`http://127.0.0.1:${server.port}`);
      if (!extra.qrQueue) await deps.qrQueue.close();
      if (!extra.webhooks) await deps.webhooks?.close();
      if (!extra.redis) redis.disconnect();
    },
  };
}
