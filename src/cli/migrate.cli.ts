import { backfillLinks } from '../links/link-backfill';
import { ensureIndexes } from '../shared/infra/mongo';
import type { CliCommand } from './command';
// Every model of the service, so that every declared index is built.
import '../app';

/** Builds the indexes, then fills new fields of old records; safe to run again. */
export async function migrate(): Promise<{ linksUpdated: number }> {
  await ensureIndexes();
  return { linksUpdated: await backfillLinks() };
}

/**
 * The migration step of a deployment: builds the declared indexes and fills what a new version
 * adds to old records. Idempotent; run once per upgrade (docker compose runs it before the API).
 */
export const dbMigrate: CliCommand = {
  name: 'db:migrate',
  usage: 'db:migrate                                        builds indexes, fills new fields',
  async run() {
    return { indexes: 'built', ...(await migrate()) };
  },
};
