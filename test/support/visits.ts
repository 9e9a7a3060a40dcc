import { createWorkerRedis } from '../../src/shared/infra/redis';
import { VisitDrainer } from '../../src/visits/visit-drainer';
import type { TestApp } from './app-harness';

/** Processes every queued visit of this test run into the rollups, so statistics can be asserted. */
export async function drainVisits(app: TestApp): Promise<number> {
  const redis = createWorkerRedis(app.config.redisUrl);
  try {
    const drainer = new VisitDrainer({ redis, keys: app.deps.keys, logger: app.deps.logger });
    return await drainer.drainAvailable();
  } finally {
    redis.disconnect();
  }
}
