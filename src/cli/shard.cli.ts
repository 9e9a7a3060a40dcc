import mongoose from 'mongoose';
import { runShardSteps, SHARD_PLAN, shardSteps } from '../shared/infra/shard-plan';
import { parseFlags } from './args';
import type { CliCommand } from './command';

/**
 * Shards the large collections on a sharded cluster (`MONGODB_URI` pointing at a `mongos`), by
 * the keys of docs/scaling.md (`SHARD_PLAN`). Every step is safe to run again. `--dry-run`
 * prints the commands without running them. Run `db:migrate` first (the indexes the keys use).
 */
export const dbShard: CliCommand = {
  name: 'db:shard',
  usage:
    'db:shard [--dry-run]                              shards the large collections (on a mongos)',
  async run(argv) {
    const flags = parseFlags(argv, [], ['dry-run']);
    const db = mongoose.connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    const steps = shardSteps(db.databaseName);
    if (flags['dry-run']) {
      return {
        database: db.databaseName,
        plan: SHARD_PLAN.map((s) => ({ collection: s.collection, key: s.key })),
        commands: steps.map((s) => ({ db: s.db, command: s.command, why: s.why })),
      };
    }
    const done = await runShardSteps(steps, (target, command) =>
      target === 'admin' ? db.admin().command(command) : db.command(command),
    );
    return { database: db.databaseName, steps: done };
  },
};
