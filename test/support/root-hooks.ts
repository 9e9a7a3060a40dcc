import mongoose from 'mongoose';
import { Redis } from 'ioredis';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../src/shared/infra/embedded-mongo';
import { connectMongo, ensureIndexes } from '../../src/shared/infra/mongo';
import { state, testDbName, testRedisPrefix } from './environment';
import './models';
import { useScryptCostForTests } from '../../src/shared/secrets';

// The service hashes passwords at N=2^17; the suite creates hundreds on shared cores, at the
// cost the service used before (test/unit/secrets.test.ts checks the real one).
useScryptCostForTests(2 ** 14);

let engine: EmbeddedMongo | undefined;

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(30_000);
    if (process.env.MONGODB_URI) {
      state.mongoUri = process.env.MONGODB_URI;
    } else {
      engine = await startEmbeddedMongo();
      state.mongoUri = engine.uri;
    }
    await connectMongo(state.mongoUri, testDbName, { monitorCommands: true });
    await ensureIndexes();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await deleteRedisKeys(testRedisPrefix);
    if (!engine) {
      // A real MongoDB keeps the per-run database otherwise; the embedded engine forgets it anyway.
      await mongoose.connection.db?.dropDatabase().catch(() => undefined);
    }
    await mongoose.disconnect();
    await engine?.stop();
  },
};
