import { backfillLinks } from '../links/link-backfill';
import type { RedisClient } from '../shared/infra/redis-connections';
import { ensureIndexes } from '../shared/infra/mongo';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { backfillAccountRollups } from '../stats/account-rollup';
import { dropRetiredVisitBucketIndexes } from '../visits/visit.model';
import type { CliCommand } from './command';
// Every model of the service, so that every declared index is built.
import '../app';

/**
 * Builds the indexes, then fills new fields of old records and the account rollups; safe to run
 * again. With Redis, the account rollups' daily unique-visitor sketches are merged too.
 */
export async function migrate(sketches?: {
  redis: RedisClient;
  keys: RedisKeys;
}): Promise<{ linksUpdated: number; accountsBackfilled: number }> {
  await ensureIndexes();
  await dropRetiredVisitBucketIndexes();
  const linksUpdated = await backfillLinks();
  return { linksUpdated, accountsBackfilled: await backfillAccountRollups(sketches) };
}

/**
 * The migration step of a deployment: builds the declared indexes and fills what a new version
 * adds to old records. Idempotent; run once per upgrade (docker compose runs it before the API).
 */
export const dbMigrate: CliCommand = {
  name: 'db:migrate',
  usage: 'db:migrate                                        builds indexes, fills new fields',
  async run(_argv, context) {
    const sketches =
      context?.redis && context.keys ? { redis: context.redis, keys: context.keys } : undefined;
    return { indexes: 'built', ...(await migrate(sketches)) };
  },
};
