/**
 * How linkqr's large collections shard (docs/scaling.md, "Shard keys"): the keys, and the admin
 * commands that apply them on a sharded cluster (`db:shard`). The embedded engine cannot shard,
 * so what is tested is the plan and the commands it builds (test/unit/shard-plan.test.ts).
 */

export type ShardKey = Record<string, 1 | 'hashed'>;

export interface ShardSpec {
  collection: string;
  key: ShardKey;
  /** The shard key also backs a unique index (it must be a ranged key, and that index's prefix). */
  unique?: boolean;
  /**
   * Declared unique indexes that a sharded collection cannot enforce (they do not start with the
   * shard key): replaced by the same index without `unique` before sharding. Their uniqueness
   * comes from elsewhere (links' `id`: one counter document incremented atomically).
   */
  nonUniqueWhenSharded?: ShardKey[];
}

/** The collections that grow with links and clicks; the rest stays on the primary shard. */
export const SHARD_PLAN: readonly ShardSpec[] = [
  // The redirect's lookup on a cache miss: one shard. Also the unique alias per domain.
  {
    collection: 'links',
    key: { domainId: 1, alias: 1 },
    unique: true,
    nonUniqueWhenSharded: [{ id: 1 }],
  },
  // Every claim, confirm and release names scope and alias; the unique index is the key.
  { collection: 'alias_reservations', key: { scope: 1, alias: 1 }, unique: true },
  // A target's raw visits together (exports name targetId). Ranged, not hashed: MongoDB documents
  // the unique {targetId, entryIds} (each click stored once) as enforceable under a ranged key.
  { collection: 'visit_buckets', key: { targetId: 1 } },
  // Every counter read and write names `_id` (`link:<id>`).
  { collection: 'visit_totals', key: { _id: 'hashed' } },
  // Ranged: the unique {target, dim, label} needs the key as its prefix.
  { collection: 'visit_counts', key: { target: 1 } },
  // Every series (a link, a code, an account's rollup `user:<id>`) reads one target's hours.
  { collection: 'visit_hours', key: { target: 1, hour: 1 } },
  { collection: 'visit_hour_labels', key: { target: 1, hour: 1 } },
  // The large documents; every read and write names qrId.
  { collection: 'qr_images', key: { qrId: 1 } },
];

export const isHashed = (key: ShardKey) => Object.values(key).includes('hashed');

/** One admin command to run, on the `admin` database or the service's. */
export interface ShardStep {
  db: 'admin' | 'service';
  command: Record<string, unknown>;
  /** Error codes meaning "already done" for this step (a rerun is harmless). */
  alreadyDone?: number[];
  why: string;
}

/** MongoDB's IndexNotFound: dropping an index that was already replaced. */
export const INDEX_NOT_FOUND = 27;

const indexName = (key: ShardKey) =>
  Object.entries(key)
    .map(([field, dir]) => `${field}_${dir}`)
    .join('_');

/**
 * The commands that shard `dbName` by `plan`, in order, each safe to run again: enable sharding,
 * then per collection replace what sharding cannot enforce, make sure an index supports a hashed
 * key (shardCollection builds one only on an empty collection), and shard.
 */
export function shardSteps(dbName: string, plan: readonly ShardSpec[] = SHARD_PLAN): ShardStep[] {
  const steps: ShardStep[] = [
    {
      db: 'admin',
      command: { enableSharding: dbName },
      why: `lets ${dbName}'s collections be sharded (implicit on MongoDB 6+, harmless there)`,
    },
  ];
  for (const spec of plan) {
    for (const key of spec.nonUniqueWhenSharded ?? []) {
      const name = indexName(key);
      steps.push(
        {
          db: 'service',
          command: { dropIndexes: spec.collection, index: name },
          alreadyDone: [INDEX_NOT_FOUND],
          why: `${spec.collection} ${JSON.stringify(key)} cannot stay unique once sharded`,
        },
        {
          db: 'service',
          command: { createIndexes: spec.collection, indexes: [{ key, name }] },
          why: `${spec.collection} ${JSON.stringify(key)} again, not unique, for its lookups`,
        },
      );
    }
    if (isHashed(spec.key)) {
      steps.push({
        db: 'service',
        command: {
          createIndexes: spec.collection,
          indexes: [{ key: spec.key, name: indexName(spec.key) }],
        },
        why: `the hashed index ${spec.collection} ${JSON.stringify(spec.key)} the key needs`,
      });
    }
    steps.push({
      db: 'admin',
      command: {
        shardCollection: `${dbName}.${spec.collection}`,
        key: spec.key,
        ...(spec.unique ? { unique: true } : {}),
      },
      why: `shards ${spec.collection} on ${JSON.stringify(spec.key)}`,
    });
  }
  return steps;
}

export type RunCommand = (
  db: ShardStep['db'],
  command: Record<string, unknown>,
) => Promise<unknown>;

/** Runs the steps in order; a step that fails with one of its "already done" codes is skipped. */
export async function runShardSteps(
  steps: readonly ShardStep[],
  run: RunCommand,
): Promise<Array<{ step: string; result: 'done' | 'already' }>> {
  const out: Array<{ step: string; result: 'done' | 'already' }> = [];
  for (const step of steps) {
    const name = Object.keys(step.command)[0] ?? '?';
    const label = `${name} ${String(step.command[name])}`;
    try {
      await run(step.db, step.command);
      out.push({ step: label, result: 'done' });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== 'number' || !step.alreadyDone?.includes(code)) throw err;
      out.push({ step: label, result: 'already' });
    }
  }
  return out;
}

/**
 * Declared unique indexes of sharded collections that a sharded cluster could not enforce: not
 * `_id`, not listed in `nonUniqueWhenSharded`, and whose fields do not start with the shard key's
 * fields (MongoDB compares field names: `{targetId: 1, entryIds: 1}` is enforceable under the
 * hashed key `{targetId: 'hashed'}`; a unique index is never hashed itself). Empty for a plan
 * that works.
 */
export function uniqueConflicts(
  plan: readonly ShardSpec[],
  indexesOf: (collection: string) => Array<{ key: Record<string, unknown>; unique: boolean }>,
): string[] {
  const conflicts: string[] = [];
  for (const spec of plan) {
    const shardFields = Object.keys(spec.key);
    const exempt = new Set((spec.nonUniqueWhenSharded ?? []).map((k) => JSON.stringify(k)));
    for (const index of indexesOf(spec.collection)) {
      if (!index.unique || exempt.has(JSON.stringify(index.key))) continue;
      const fields = Object.keys(index.key);
      if (fields.length === 1 && fields[0] === '_id') continue;
      const prefixed = shardFields.every((f, i) => fields[i] === f);
      if (!prefixed) {
        conflicts.push(`${spec.collection} ${JSON.stringify(index.key)}`);
      }
    }
  }
  return conflicts;
}

/** Whether an index build failed only because `db:shard` replaced it (a sharded cluster's links). */
export function replacedWhenSharded(collection: string, key: Record<string, unknown>): boolean {
  return SHARD_PLAN.some(
    (s) =>
      s.collection === collection &&
      (s.nonUniqueWhenSharded ?? []).some((k) => JSON.stringify(k) === JSON.stringify(key)),
  );
}
