import mongoose from 'mongoose';
import { Redis } from 'ioredis';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../src/shared/infra/embedded-mongo';
import { connectMongo, ensureIndexes } from '../../src/shared/infra/mongo';
import { newRunId, RUN_ENV, state, testDbName } from './environment';
import './models';
import { useScryptCostForTests } from '../../src/shared/secrets';

// The service hashes passwords at N=2^17; the suite creates hundreds on shared cores, at the
// cost the service used before (test/unit/secrets.test.ts checks the real one).
useScryptCostForTests(2 ** 14);

/** Where the global setup's engine listens, for every process of the run (mocha's workers too). */
const ENGINE_ENV = 'LINKQR_TEST_ENGINE_URI';
const mongoUri = (): string | undefined => process.env.MONGODB_URI ?? process.env[ENGINE_ENV];

let engine: EmbeddedMongo | undefined;

async function deleteRedisKeys(pattern: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A real MongoDB keeps each process's database otherwise; the embedded engine forgets them. */
async function dropRunDatabases(uri: string, run: string): Promise<void> {
  const client = await mongoose.mongo.MongoClient.connect(uri);
  try {
    const { databases } = await client.db().admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (name.startsWith(`linkqr_test_${run}-`)) await client.db(name).dropDatabase();
    }
  } finally {
    await client.close();
  }
}

/**
 * Once per run, in mocha's own process before it forks any worker (`npm test` runs the files in
 * three processes): one engine for every process, each with its own database and Redis prefix.
 */
export async function mochaGlobalSetup(): Promise<void> {
  process.env[RUN_ENV] ??= newRunId();
  if (!mongoUri()) {
    engine = await startEmbeddedMongo();
    process.env[ENGINE_ENV] = engine.uri;
  }
}

export async function mochaGlobalTeardown(): Promise<void> {
  const run = process.env[RUN_ENV] as string;
  // Run without --parallel, the files ran in this process, connected by the root hooks.
  await mongoose.disconnect();
  await deleteRedisKeys(`linkqr-test-${run}-*`);
  // A worker mocha has just ended may still land a write it had sent (BullMQ's queue metadata).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await deleteRedisKeys(`linkqr-test-${run}-*`);
  if (engine) await engine.stop();
  else if (process.env.MONGODB_URI) await dropRunDatabases(process.env.MONGODB_URI, run);
}

let indexed = false;

/**
 * Root hooks run once per file in parallel mode, and a worker runs many files: each process
 * connects and builds the indexes once, and stays connected until mocha ends it.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(30_000);
    state.mongoUri = mongoUri();
    if (!state.mongoUri) throw new Error('no MongoDB: the global setup did not run');
    if (mongoose.connection.readyState !== 1) {
      await connectMongo(state.mongoUri, testDbName, { monitorCommands: true });
    }
    if (!indexed) {
      await ensureIndexes();
      indexed = true;
    }
  },
};
