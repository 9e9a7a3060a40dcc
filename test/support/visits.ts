import { createRedisClient } from '../../src/shared/infra/redis-connections';
import { VisitDrainer } from '../../src/visits/visit-drainer';
import type { TestApp } from './app-harness';

/** Processes every queued visit of this test run into the rollups, so statistics can be asserted. */
export async function drainVisits(app: TestApp): Promise<number> {
  // Clicks a busy process gathers are sent within CAPTURE_WINDOW_MS: send them now.
  await app.deps.visits.flush();
  const redis = createRedisClient(app.config.redis, 'blocking');
  try {
    const drainer = new VisitDrainer({
      redis,
      keys: app.deps.keys,
      logger: app.deps.logger,
      partitions: app.config.visitStreamPartitions,
    });
    return await drainer.drainAvailable();
  } finally {
    redis.disconnect();
  }
}
