import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';
import { createLogger } from '../src/shared/infra/logger';
import { connectMongo, ensureIndexes } from '../src/shared/infra/mongo';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { VisitBucket, VisitCount, VisitTotal } from '../src/visits/visit.model';
import { toBuckets, type BucketDoc } from '../src/visits/visit-bucket-form';
import { VisitDrainer } from '../src/visits/visit-drainer';
import { decodeVisit, encodeVisit, visitStreamKey } from '../src/visits/visit-stream';
import type { CapturedVisit } from '../src/visits/visits.types';
import { cpuMsOf } from './support/service';

/**
 * The visit drain's write path: visits per second the worker's drainer stores and counts (read
 * from the stream, described, stored as buckets, rolled up, acknowledged) against a baseline that
 * only describes the same visits and stores their buckets, measured in interleaved rounds on an
 * engine of its own (`MONGODB_URI` to use a real MongoDB). The ratio is what counting, reading the
 * stream and acknowledging cost on top of storing the raw visits. The drain's CPU per visit, in
 * this process (the drainer) and in the engine, is reported too: on a shared machine it is the
 * steadier figure.
 */
const VISITS = Number(process.env.BENCH_VISITS ?? 10_000);
const TARGETS = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
];

function visits(): CapturedVisit[] {
  const now = Date.now();
  return Array.from({ length: VISITS }, (_, i) => ({
    kind: 'link' as const,
    targetId: i % TARGETS,
    at: now + i,
    visitor: `visitor${i % 300}`,
    country: ['Germany', 'France', 'Spain'][i % 3] as string,
    userAgent: AGENTS[i % 2] as string,
    referrer: i % 5 ? '' : 'https://www.facebook.com/post',
  }));
}

async function emptyCollections(): Promise<void> {
  await Promise.all([
    VisitBucket.deleteMany({}),
    VisitTotal.deleteMany({}),
    VisitCount.deleteMany({}),
  ]);
}

interface Cpu {
  node: number;
  engine: number;
}
/** CPU ms of this process and of the engine (when it is ours). */
function cpuNow(enginePid: number | undefined): Cpu {
  const own = process.cpuUsage();
  return {
    node: (own.user + own.system) / 1000,
    engine: enginePid === undefined ? 0 : cpuMsOf(enginePid),
  };
}
const drainCpu: Cpu[] = [];

async function drainLine(redis: Redis, round: number, enginePid?: number): Promise<number> {
  const keys = new RedisKeys(`linkqr-bench-drain-${process.pid}-${round}:`);
  const stream = visitStreamKey(keys);
  const pipeline = redis.pipeline();
  for (const visit of visits()) pipeline.xadd(stream, '*', ...encodeVisit(visit));
  await pipeline.exec();
  const drainer = new VisitDrainer({ redis, keys, logger: createLogger('warn') });
  const cpuBefore = cpuNow(enginePid);
  const start = process.hrtime.bigint();
  const stored = await drainer.drainAvailable();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpuAfter = cpuNow(enginePid);
  drainCpu.push({
    node: ((cpuAfter.node - cpuBefore.node) * 1000) / VISITS,
    engine: ((cpuAfter.engine - cpuBefore.engine) * 1000) / VISITS,
  });
  const totals = await VisitTotal.find({}).lean();
  const counted = totals.reduce((n, t) => n + (t.clicks ?? 0) + (t.bots ?? 0), 0);
  await redis.del(stream);
  if (stored !== VISITS || counted !== VISITS)
    throw new Error(`drained ${stored} and counted ${counted} of ${VISITS} visits`);
  return VISITS / seconds;
}

/** Describe and store the same visits as buckets of 500, as the drainer batches them: no counting. */
async function storeOnlyLine(): Promise<number> {
  const all = visits();
  const encoded = all.map((v) => decodeVisit(encodeVisit(v)) as CapturedVisit);
  const db = mongoose.connection.db as mongoose.mongo.Db;
  const start = process.hrtime.bigint();
  for (let i = 0; i < encoded.length; i += 500) {
    const batch = encoded.slice(i, i + 500).map((visit, j) => ({ entryId: `0-${i + j}`, visit }));
    const docs = toBuckets(batch, { applier: 'bench', seq: i });
    await db.collection<BucketDoc>(VisitBucket.collection.collectionName).insertMany(docs);
  }
  return VISITS / (Number(process.hrtime.bigint() - start) / 1e9);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const engine = process.env.MONGODB_URI ? undefined : await startEmbeddedMongo();
  await connectMongo(
    process.env.MONGODB_URI ?? (engine?.uri as string),
    `linkqr_bench_drain_${process.pid}`,
  );
  await ensureIndexes();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const drain: number[] = [];
  const store: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate the order so machine load falls on both lines alike.
      for (const line of round % 2 ? ['store', 'drain'] : ['drain', 'store']) {
        await emptyCollections();
        if (line === 'drain') drain.push(await drainLine(redis, round, engine?.pid));
        else store.push(await storeOnlyLine());
      }
      const cpu = drainCpu.at(-1);
      console.log(
        `round ${round + 1}: drain ${fmt(drain.at(-1) ?? 0)} visits/s (CPU per visit: drainer ${cpu?.node.toFixed(1)} µs, engine ${cpu?.engine.toFixed(1)} µs), store-only ${fmt(store.at(-1) ?? 0)} visits/s`,
      );
    }
    const ratio = median(drain) / median(store);
    const cpuMedian = (role: keyof Cpu) => median(drainCpu.map((c) => c[role])).toFixed(1);
    console.log(
      `drain CPU per visit (median): drainer ${cpuMedian('node')} µs, engine ${cpuMedian('engine')} µs`,
    );
    console.log(
      `drain (store + count + ack): ${fmt(median(drain))} visits/s; store-only baseline: ${fmt(median(store))} visits/s; ratio ${ratio.toFixed(2)} (${VISITS} visits over ${TARGETS} links per round, median of ${ROUNDS})`,
    );
  } finally {
    await emptyCollections();
    redis.disconnect();
    await mongoose.disconnect();
    await engine?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
