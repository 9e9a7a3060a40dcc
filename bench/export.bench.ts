import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import express from 'express';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { Link } from '../src/links/link.model';
import { createQrRenderQueue } from '../src/qr-codes/qr-codes.jobs';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';
import { createLogger } from '../src/shared/infra/logger';
import { connectMongo, disconnectMongo, ensureIndexes } from '../src/shared/infra/mongo';
import { standaloneRedis, waitForRedis } from '../src/shared/infra/redis-connections';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { listen } from '../src/server';
import { VisitBucket } from '../src/visits/visit.model';
import { createVisits } from '../src/visits/visit-recorder';
import { listVisits } from '../src/visits/visits.service';
import { createUser } from '../src/users/users.service';

/**
 * Peak memory of exporting 100,000 visits of one link through `GET /api/url/:id/visits`, against
 * the same rows loaded whole and sent as one JSON array (what an export without streaming does),
 * each in a fresh server process whose peak RSS (`process.resourceUsage().maxRSS`) is reported.
 * The rows are generated as 20 stored buckets of 5,000 visits, in one `insertMany`: the embedded
 * engine is slow per write call, not per document.
 */

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
const PER_BUCKET = 5_000;
/** A heap cap under which the whole export cannot be held at once: streaming must still finish. */
const SMALL_HEAP_MB = Number(process.env.BENCH_EXPORT_HEAP_MB ?? 64);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type Mode = 'main' | 'streamed' | 'buffered';
type FromChild =
  | { type: 'listening'; port: number; rss: number }
  | { type: 'memory'; maxRss: number; rss: number };

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function serve(mode: Exclude<Mode, 'main'>): Promise<void> {
  const config = loadConfig(process.env);
  await connectMongo(process.env.MONGODB_URI as string, config.mongodbDbName);
  const logger = createLogger('warn');
  const redis = standaloneRedis(config.redisUrl, 'request');
  await waitForRedis(redis);
  const keys = new RedisKeys(config.redisPrefix);
  const visits = createVisits({ redis, keys, logger, salt: 'bench', countryHeader: undefined });
  const qrQueue = createQrRenderQueue({ connection: redis, keys, logger });
  const app =
    mode === 'streamed'
      ? createApp({ config, logger, redis, keys, visits, qrQueue })
      : express().get('/api/url/:id/visits', async (req, res) => {
          res.json(await listVisits({ kind: 'link', id: Number(req.params.id) }));
        });
  const server = await listen(app, 0, '127.0.0.1');
  global.gc?.();
  process.send?.({ type: 'listening', port: server.port, rss: process.memoryUsage.rss() });
  process.on('message', () => {
    const { maxRSS } = process.resourceUsage();
    process.send?.({ type: 'memory', maxRss: maxRSS * 1024, rss: process.memoryUsage.rss() });
  });
  process.on('disconnect', () => process.exit(0));
}

function next(child: ChildProcess): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    child.once('message', (m: FromChild) => resolve(m));
    child.once('exit', (code) => reject(new Error(`server exited with code ${code}`)));
  });
}

/** Reads the whole body as it arrives, keeping only counts (the client must not hold it either). */
async function download(url: string, apiKey: string): Promise<{ lines: number; bytes: number }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  return { lines, bytes };
}

async function measure(
  mode: Exclude<Mode, 'main'>,
  env: NodeJS.ProcessEnv,
  path: string,
  apiKey: string,
  heapMb?: number,
) {
  const execArgv = ['--import', 'tsx', '--expose-gc'];
  if (heapMb) execArgv.push(`--max-old-space-size=${heapMb}`);
  const child = fork(__filename, [mode], { env, execArgv, silent: true });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  try {
    const ready = await next(child);
    if (ready.type !== 'listening') throw new Error('unexpected message');
    const started = Date.now();
    const got = await download(`http://127.0.0.1:${ready.port}${path}`, apiKey);
    const seconds = (Date.now() - started) / 1000;
    child.send('memory');
    const memory = await next(child);
    if (memory.type !== 'memory') throw new Error('unexpected message');
    return { idleRss: ready.rss, peakRss: memory.maxRss, seconds, ...got };
  } catch (err) {
    if (stderr.includes('heap out of memory'))
      throw new Error('the server ran out of memory', { cause: err });
    throw new Error(`${(err as Error).message}: ${stderr}`, { cause: err });
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  const engine = process.env.MONGODB_URI ? undefined : await startEmbeddedMongo();
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: '0',
    PUBLIC_URL: 'http://linkqr.bench',
    LOG_LEVEL: 'warn',
    REDIS_URL,
    REDIS_PREFIX: `linkqr-bench-${runId}:`,
    MONGODB_URI: process.env.MONGODB_URI ?? engine?.uri,
    MONGODB_DB: `bench_${runId}`,
  };
  try {
    await connectMongo(env.MONGODB_URI as string, env.MONGODB_DB);
    await ensureIndexes();
    const { user, apiKey } = await createUser({
      email: `bench-${runId}@example.test`,
      username: `bench${runId}`,
      plan: 'bench',
    });
    const link = await Link.create({
      id: 1,
      userId: user.id,
      domainId: 0,
      alias: `bench${runId}`,
      url: 'https://example.com/',
      createdAt: new Date(),
    });
    const start = Date.parse('2025-01-01T00:00:00Z');
    const buckets = Array.from({ length: ROWS / PER_BUCKET }, (_, b) => {
      const visits = Array.from({ length: PER_BUCKET }, (_, i) => {
        const n = b * PER_BUCKET + i;
        return {
          entryId: `bench-${n}`,
          at: new Date(start + n * 1000),
          visitor: randomBytes(16).toString('base64url'),
          country: n % 3 ? 'Germany' : 'United States',
          referrer: n % 2 ? 'Direct' : 'news.example.com',
          browser: 'Chrome',
          os: 'Windows',
          social: null,
          bot: n % 50 === 0,
        };
      });
      return {
        _id: `link:${link.id}:bench-${b}`,
        kind: 'link',
        targetId: link.id,
        from: visits[0]?.at,
        to: visits[visits.length - 1]?.at,
        entryIds: visits.map((v) => v.entryId),
        visits,
      };
    });
    const inserting = Date.now();
    await VisitBucket.insertMany(buckets);
    console.log(
      `generated ${ROWS} visits in ${buckets.length} buckets, one insertMany: ${Date.now() - inserting} ms`,
    );
    await disconnectMongo();

    const path = `/api/url/${link.id}/visits`;
    const runs: Array<[string, () => ReturnType<typeof measure>]> = [
      ['streamed CSV', () => measure('streamed', env, `${path}?format=csv`, apiKey)],
      ['streamed JSONL', () => measure('streamed', env, `${path}?format=jsonl`, apiKey)],
      ['buffered JSON (baseline)', () => measure('buffered', env, path, apiKey)],
      [
        `streamed CSV, ${SMALL_HEAP_MB} MB heap`,
        () => measure('streamed', env, `${path}?format=csv`, apiKey, SMALL_HEAP_MB),
      ],
      [
        `buffered, ${SMALL_HEAP_MB} MB heap`,
        () => measure('buffered', env, path, apiKey, SMALL_HEAP_MB),
      ],
    ];
    const results = new Map<string, Awaited<ReturnType<typeof measure>>>();
    for (const [name, run] of runs) {
      try {
        const r = await run();
        results.set(name, r);
        console.log(
          `${name.padEnd(28)} ${mb(r.bytes).padStart(9)}  idle RSS ${mb(r.idleRss).padStart(9)}  ` +
            `peak RSS ${mb(r.peakRss).padStart(9)}  growth ${mb(r.peakRss - r.idleRss).padStart(9)}  ${r.seconds.toFixed(1)} s`,
        );
        if (name.startsWith('streamed CSV') && r.lines !== ROWS + 1)
          throw new Error(`CSV had ${r.lines} lines, expected ${ROWS + 1}`);
      } catch (err) {
        console.log(`${name.padEnd(28)} failed: ${(err as Error).message}`);
      }
    }
    const streamed = results.get('streamed CSV');
    const buffered = results.get('buffered JSON (baseline)');
    if (!streamed || !buffered || !results.has(`streamed CSV, ${SMALL_HEAP_MB} MB heap`))
      throw new Error('a streamed export or the baseline failed');
    console.log(
      `peak RSS growth, streamed CSV / buffered: ${((streamed.peakRss - streamed.idleRss) / (buffered.peakRss - buffered.idleRss)).toFixed(2)}`,
    );
  } finally {
    await engine?.stop();
  }
}

const mode = (process.argv[2] ?? 'main') as Mode;
(mode === 'main' ? main() : serve(mode)).catch((err: unknown) => {
  console.error(`export bench (${mode}) failed:`, err);
  process.exit(1);
});
