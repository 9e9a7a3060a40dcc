import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createQrRenderQueue } from '../src/qr-codes/qr-codes.jobs';
import { listen } from '../src/server';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';
import { createLogger } from '../src/shared/infra/logger';
import { connectMongo, ensureIndexes } from '../src/shared/infra/mongo';
import { createRedisClient, waitForRedis } from '../src/shared/infra/redis-connections';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { createUser } from '../src/users/users.service';
import { createVisits } from '../src/visits/visit-recorder';

/**
 * Creating 100 links: one `POST /api/urls/bulk` of 100 against the baseline of 100
 * `POST /api/url/add` (10 at a time, as a client would), in interleaved rounds, counting the
 * MongoDB commands each sends and timing each. In one process on the embedded engine (or
 * MONGODB_URI): run it pinned, `taskset -c 0 npm run bench -- bulk`. BENCH_ROUNDS (5) adjusts it.
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCH = 100;
const CONCURRENCY = 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

async function main(): Promise<void> {
  const engine = process.env.MONGODB_URI ? undefined : await startEmbeddedMongo();
  try {
    await measure(process.env.MONGODB_URI ?? (engine?.uri as string));
  } finally {
    // Also on a failure: the engine is a process of its own and would outlive this one.
    await engine?.stop();
  }
}

async function measure(uri: string): Promise<void> {
  const run = randomBytes(4).toString('hex');
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    MONGODB_URI: uri,
    MONGODB_DB: `linkqr_bench_bulk_${run}`,
    REDIS_PREFIX: `linkqr-bench-bulk-${run}:`,
    PLAN_RATE_LIMITS: JSON.stringify({ bench: 1_000_000 }),
    LOG_LEVEL: 'silent',
  });
  await connectMongo(uri, config.mongodbDbName);
  await ensureIndexes();
  const redis = createRedisClient(config.redis, 'request');
  await waitForRedis(redis);
  const logger = createLogger('silent');
  const keys = new RedisKeys(config.redisPrefix);
  const visits = createVisits({ redis, keys, logger, salt: 'bench', countryHeader: undefined });
  const qrQueue = createQrRenderQueue({ connection: redis, keys, logger });
  const app = createApp({ config, logger, redis, keys, visits, qrQueue });
  const server = await listen(app, 0, '127.0.0.1', { idleGraceMs: 0 });
  const base = `http://127.0.0.1:${server.port}`;
  const { apiKey } = await createUser({
    email: `bench-${run}@example.test`,
    username: `bench${run}`,
    plan: 'bench',
  });
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<{ data?: Array<{ error: number }> }>;
  };
  let n = 0;
  const url = () => ({ url: `https://example.com/bench/${(n += 1)}` });
  const cases: Record<string, () => Promise<void>> = {
    '100 x POST /api/url/add, 10 at a time (baseline)': async () => {
      for (let i = 0; i < BATCH; i += CONCURRENCY)
        await Promise.all(Array.from({ length: CONCURRENCY }, () => post('/api/url/add', url())));
    },
    'POST /api/urls/bulk of 100': async () => {
      const body = await post('/api/urls/bulk', { urls: Array.from({ length: BATCH }, url) });
      if (body.data?.some((r) => r.error !== 0)) throw new Error('a bulk item failed');
    },
  };
  let commands = 0;
  // Every collection operation (one MongoDB command each) passes mongoose's debug hook.
  mongoose.set('debug', () => {
    commands += 1;
  });
  const ms = new Map<string, number[]>();
  const cmds = new Map<string, number[]>();
  const names = Object.keys(cases);
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate which goes first, so a collection that grows weighs on both alike.
    for (const name of round % 2 ? [...names].reverse() : names) {
      const before = commands;
      const started = performance.now();
      await (cases[name] as () => Promise<void>)();
      ms.set(name, [...(ms.get(name) ?? []), performance.now() - started]);
      cmds.set(name, [...(cmds.get(name) ?? []), commands - before]);
    }
  }
  for (const name of names)
    console.log(
      `${name}: ${median(ms.get(name) ?? []).toFixed(0)} ms, ${median(cmds.get(name) ?? [])} MongoDB commands (median of ${ROUNDS})`,
    );
  const [baseline, bulk] = names.map((name) => median(ms.get(name) ?? []));
  console.log(`ratio bulk/baseline time: ${((bulk ?? 0) / (baseline ?? 1)).toFixed(3)}`);
  await server.close();
  await qrQueue.close();
  await mongoose.connection.db?.dropDatabase().catch(() => undefined);
  await mongoose.disconnect();
  redis.disconnect();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
