import mongoose from 'mongoose';

// The embedded engine lacks the `create` and `listCollections` commands: collections are created
// by their first insert, and indexes are built explicitly by `syncIndexes` below.
mongoose.set('autoCreate', false);
mongoose.set('autoIndex', false);
// Fail fast while disconnected, so the API answers 503 instead of hanging on a buffered query.
mongoose.set('bufferCommands', false);
mongoose.set('strictQuery', true);

export async function connectMongo(
  uri: string,
  dbName?: string,
  options: { monitorCommands?: boolean } = {},
): Promise<typeof mongoose> {
  return mongoose.connect(uri, {
    dbName,
    // Command events: the query-plan test reads every query a request sends (test/support).
    monitorCommands: options.monitorCommands ?? false,
    // A replica-set election is then retried once by the driver, whatever the URI says; what
    // still fails answers 503 with Retry-After (shared/errors/infra-errors.ts).
    retryReads: true,
    retryWrites: true,
    serverSelectionTimeoutMS: 3000,
    // Also the driver's heartbeat timeout: a monitor check that times out drops the server and
    // interrupts every operation in flight. At 3 s a saturated engine sharing one core with the
    // service (the per-core bench's 5-minute redirect soak) was dropped mid-load and /api answered
    // 503; a dead server is still noticed at once by the operations that fail (MongoHealth).
    connectTimeoutMS: 10_000,
  });
}

/** Builds every model's declared indexes (unique constraints included). */
export async function ensureIndexes(): Promise<void> {
  for (const model of Object.values(mongoose.models)) {
    await model.createIndexes();
  }
}

export async function pingMongo(): Promise<void> {
  const db = mongoose.connection.db;
  if (!db || mongoose.connection.readyState !== 1) throw new Error('MongoDB is not connected');
  await db.command({ ping: 1 });
}

export async function disconnectMongo(): Promise<void> {
  await mongoose.disconnect();
}
