import mongoose, { type ConnectOptions, type mongo } from 'mongoose';
import { replacedWhenSharded } from './shard-plan';
import type { ReadPreference } from '../../config';

// The embedded engine lacks the `create` and `listCollections` commands: collections are created
// by their first insert, and indexes are built explicitly by `syncIndexes` below.
mongoose.set('autoCreate', false);
mongoose.set('autoIndex', false);
// Fail fast while disconnected, so the API answers 503 instead of hanging on a buffered query.
mongoose.set('bufferCommands', false);
mongoose.set('strictQuery', true);

let analyticsReads: ReadPreference = 'primary';

/**
 * Where statistics and exports read (MONGODB_READ_PREFERENCE): they tolerate a replica's lag of
 * a second or two, so on a replica set they can spare the primary. Everything else reads the
 * primary: a write must be seen by the next request.
 */
export function analyticsReadPreference(): ReadPreference {
  return analyticsReads;
}

/** Sets where statistics and exports read; `connectMongo` sets it from its options. */
export function setAnalyticsReadPreference(preference: ReadPreference): void {
  analyticsReads = preference;
}

/**
 * The driver options of every connection. They win over the URI's (the driver's rule), so a
 * `retryWrites=false` or `w=1` in MONGODB_URI cannot turn off what a failover needs.
 */
export function connectionOptions(
  dbName: string | undefined,
  monitorCommands = false,
): ConnectOptions {
  return {
    dbName,
    // Command events: the query-plan test reads every query a request sends (test/support).
    monitorCommands,
    // A replica-set election is then retried once by the driver, whatever the URI says; what
    // still fails answers 503 with Retry-After (shared/errors/infra-errors.ts).
    retryReads: true,
    retryWrites: true,
    // Acknowledged by a majority of the replica set and journaled: a click counted, a key
    // rotated or an audit entry written survives the primary's loss (docs/scaling.md).
    writeConcern: { w: 'majority', journal: true },
    // The driver merges a URI's `journal=false` (or `j=false`) into the write concern above even
    // so; given here too, the option wins.
    journal: true,
    serverSelectionTimeoutMS: 3000,
    // Also the driver's heartbeat timeout: a monitor check that times out drops the server and
    // interrupts every operation in flight. At 3 s a saturated engine sharing one core with the
    // service (the per-core bench's 5-minute redirect soak) was dropped mid-load and /api answered
    // 503; a dead server is still noticed at once by the operations that fail (MongoHealth).
    connectTimeoutMS: 10_000,
  };
}

export async function connectMongo(
  uri: string,
  dbName?: string,
  options: { monitorCommands?: boolean; analyticsReadPreference?: ReadPreference } = {},
): Promise<typeof mongoose> {
  setAnalyticsReadPreference(options.analyticsReadPreference ?? 'primary');
  return mongoose.connect(uri, connectionOptions(dbName, options.monitorCommands));
}

/**
 * Builds every model's declared indexes (unique constraints included). The migration step runs
 * it (`db:migrate`, and `npm start` before it starts the API and the worker); API and worker
 * processes only verify (`missingIndexes`), so many replicas starting together on a large
 * database never queue index builds.
 */
export async function ensureIndexes(): Promise<void> {
  for (const model of Object.values(mongoose.models)) {
    try {
      await model.createIndexes();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const name = model.collection.collectionName;
      const declared = model.schema.indexes();
      // IndexOptionsConflict / IndexKeySpecsConflict on a collection `db:shard` sharded: the
      // unique indexes it made non-unique stay so; the model's other indexes are built.
      if ((code !== 85 && code !== 86) || !declared.some(([k]) => replacedWhenSharded(name, k))) {
        throw err;
      }
      for (const [keys, options] of declared) {
        if (replacedWhenSharded(name, keys)) continue;
        await model.collection.createIndex(
          keys as mongo.IndexSpecification,
          options as mongo.CreateIndexesOptions,
        );
      }
    }
  }
}

/** The declared indexes the database lacks, as `collection {keys}`; one listIndexes per model. */
export async function missingIndexes(): Promise<string[]> {
  const missing: string[] = [];
  for (const model of Object.values(mongoose.models)) {
    const existing = await model.collection
      .listIndexes()
      .toArray()
      .catch((err: unknown) => {
        // A collection nothing was written to yet has no indexes at all.
        if ((err as { code?: unknown }).code === 26) return [];
        throw err;
      });
    const have = new Set(existing.map((i) => JSON.stringify(i.key)));
    for (const [keys] of model.schema.indexes()) {
      if (!have.has(JSON.stringify(keys))) {
        missing.push(`${model.collection.collectionName} ${JSON.stringify(keys)}`);
      }
    }
  }
  return missing;
}

export async function pingMongo(): Promise<void> {
  const db = mongoose.connection.db;
  if (!db || mongoose.connection.readyState !== 1) throw new Error('MongoDB is not connected');
  await db.command({ ping: 1 });
}

export async function disconnectMongo(): Promise<void> {
  await mongoose.disconnect();
}
