import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';
import express, { type Express } from 'express';
import { Redis } from 'ioredis';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createQrRenderQueue } from '../src/qr-codes/qr-codes.jobs';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';
import { createLogger } from '../src/shared/infra/logger';
import { connectMongo, disconnectMongo, ensureIndexes } from '../src/shared/infra/mongo';
import { createRedis, createWorkerRedis, waitForRedis } from '../src/shared/infra/redis';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { VisitDrainer, visitBacklog } from '../src/shared/visits/visit-drainer';
import { createVisits } from '../src/shared/visits/visit-recorder';
import { DRAINER_GROUP, visitStreamKey } from '../src/shared/visits/visit-stream';
import { getStatistics } from '../src/shared/visits/visits.service';
import { createUser } from '../src/users/users.service';

/**
 * `GET /:alias` of the real app (cache, click recording on the Redis stream) against a bare
 * Express handler answering the same 302, in one run. Each server runs in a process of its own,
 * as does the visit drainer (the worker's job in production), so autocannon in this process never
 * shares an event loop with what it measures. Afterwards every 302 served must be counted as a
 * click once the drainer has caught up, and the stream backlog must have stayed bounded.
 */

const CONNECTIONS = 10;
const DURATION_S = 10;
const WARMUP_S = 3;
const TARGET_RATIO = 0.4;
/** The worker's drainer batch (500) unless BENCH_DRAINER_BATCH says otherwise. */
const DRAINER_BATCH = Number(process.env.BENCH_DRAINER_BATCH ?? 500);
/**
 * BENCH_PAUSE_DRAINER=1 stops the drainer during the load (and resumes it after): the API
 * process's own cost, without the drainer and the engine competing for the machine's cores.
 */
const PAUSE_DRAINER = process.env.BENCH_PAUSE_DRAINER === '1';
const DRAIN_TIMEOUT_MS = 300_000;
const LONG_URL = 'https://example.com/landing?utm_source=bench';
const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type Mode = 'main' | 'app' | 'bare' | 'drainer';
type ToChild = { type: 'served' };
type FromChild = { type: 'listening'; port: number } | { type: 'served'; count: number };

function childEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    PORT: '0',
    PUBLIC_URL: 'http://linkqr.bench',
    LOG_LEVEL: 'warn',
    REDIS_URL,
  };
}

/** Serves `app`, counting the 302s it actually sent (autocannon misses the ones cut off at the end). */
function serveCounting(app: Express | http.RequestListener): void {
  let served = 0;
  const server = http.createServer((req, res) => {
    res.on('finish', () => {
      if (res.statusCode === 302) served += 1;
    });
    app(req, res);
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.send?.({ type: 'listening', port } satisfies FromChild);
  });
  process.on('message', (message: ToChild) => {
    if (message.type === 'served') process.send?.({ type: 'served', count: served });
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

async function runApp(): Promise<void> {
  const config = loadConfig(childEnv());
  const logger = createLogger(config.logLevel, 'linkqr-bench-api');
  await connectMongo(process.env.MONGODB_URI as string, config.mongodbDbName);
  const redis = createRedis(config.redisUrl);
  await waitForRedis(redis);
  const keys = new RedisKeys(config.redisPrefix);
  const visits = createVisits({
    redis,
    keys,
    logger,
    salt: 'bench-salt',
    countryHeader: undefined,
  });
  const qrQueue = createQrRenderQueue({ connection: redis, keys, logger });
  serveCounting(createApp({ config, logger, redis, keys, visits, qrQueue }));
}

function runBare(): void {
  const app = express();
  app.disable('x-powered-by');
  app.get('/:alias', (_req, res) => res.redirect(302, LONG_URL));
  serveCounting(app);
}

async function runDrainer(): Promise<void> {
  const config = loadConfig(childEnv());
  const logger = createLogger('warn', 'linkqr-bench-drainer');
  await connectMongo(process.env.MONGODB_URI as string, config.mongodbDbName);
  const drainer = new VisitDrainer({
    redis: createWorkerRedis(config.redisUrl),
    keys: new RedisKeys(config.redisPrefix),
    logger,
    batchSize: DRAINER_BATCH,
  });
  drainer.start();
  process.send?.({ type: 'listening', port: 0 } satisfies FromChild);
  process.on('disconnect', () => process.exit(0));
}

function start(mode: Mode, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(__filename, [mode], { env, execArgv: ['--import', 'tsx', '--cpu-prof', '--cpu-prof-dir=/tmp/prof10/' + mode] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${mode} exited with code ${code}`)));
    child.on('message', (message: FromChild) => {
      if (message.type === 'listening') resolve({ child, port: message.port });
    });
  });
}

function servedBy(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: FromChild) => {
      if (message.type !== 'served') return;
      child.off('message', onMessage);
      resolve(message.count);
    };
    child.on('message', onMessage);
    child.send({ type: 'served' } satisfies ToChild);
  });
}

function load(url: string, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    headers: { 'user-agent': BROWSER },
  });
}

async function createBenchLink(apiUrl: string, apiKey: string, custom: string): Promise<number> {
  const res = await fetch(`${apiUrl}/api/url/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: LONG_URL, custom }),
  });
  if (res.status !== 200) throw new Error(`url/add answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: number }).id;
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (found.length) await redis.del(...found);
  } while (cursor !== '0');
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Phase {
  result: autocannon.Result;
  served: number;
  clicks: number;
  samples: number[];
  drainMs: number;
  backlog: number;
}

const code302 = (r: autocannon.Result) => r.statusCodeStats?.['302']?.count ?? r['3xx'];
const maxOf = (xs: number[]) => (xs.length ? Math.max(...xs) : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Loads one alias, sampling the stream length, then waits until the drainer has counted it all. */
async function measureApp(
  ctx: { redis: Redis; keys: RedisKeys; api: ChildProcess; url: string; linkId: number },
  beforeDrain: () => void = () => undefined,
): Promise<Phase> {
  const { redis, keys, api, url, linkId } = ctx;
  const servedBefore = await servedBy(api);
  const samples: number[] = [];
  const sampler = setInterval(() => {
    visitBacklog(redis, keys).then(
      (n) => samples.push(n),
      () => undefined,
    );
  }, 250);
  const result = await load(url, DURATION_S);
  clearInterval(sampler);
  const served = (await servedBy(api)) - servedBefore;
  beforeDrain();
  const drainStart = Date.now();
  let clicks = 0;
  let backlog = -1;
  while (Date.now() - drainStart < DRAIN_TIMEOUT_MS) {
    backlog = await visitBacklog(redis, keys);
    const [pending] = (await redis.xpending(visitStreamKey(keys), DRAINER_GROUP)) as [number];
    clicks = (await getStatistics({ kind: 'link', id: linkId }, redis, keys)).clicks;
    if (backlog === 0 && pending === 0 && clicks >= served) break;
    await sleep(100);
  }
  return { result, served, clicks, samples, drainMs: Date.now() - drainStart, backlog };
}

function report(label: string, phase: Phase, bare: autocannon.Result): boolean {
  const { result, samples } = phase;
  const ratio = result.requests.average / bare.requests.average;
  const half = Math.floor(samples.length / 2);
  const counted = phase.clicks === phase.served && phase.backlog === 0;
  console.log(`\n${label}`);
  console.log(
    `  ${fmt(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${fmt(code302(result))} 302s, ${result.errors + result.non2xx - code302(result)} errors`,
  );
  console.log(
    `  ratio ${(ratio * 100).toFixed(1)} % of the bare handler: ${ratio >= TARGET_RATIO ? 'meets' : 'MISSES'} the ${TARGET_RATIO * 100} % target`,
  );
  console.log(
    `  stream backlog sampled ${samples.length}x every 250 ms: max ${fmt(maxOf(samples))} (first half ${fmt(maxOf(samples.slice(0, half)))}, second half ${fmt(maxOf(samples.slice(half)))}), at the end of the load ${fmt(samples.at(-1) ?? 0)}`,
  );
  console.log(
    `  drained ${(phase.drainMs / 1000).toFixed(1)} s after the load; clicks counted ${fmt(phase.clicks)} for ${fmt(phase.served)} 302s served (autocannon saw ${fmt(code302(result))}): ${counted ? 'equal' : 'DIFFERENT'}`,
  );
  return counted;
}

async function main(): Promise<void> {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const prefix = `linkqr-bench-${runId}:`;
  const engine = await startEmbeddedMongo();
  const env = {
    ...childEnv(),
    MONGODB_URI: engine.uri,
    MONGODB_DB: `bench_${runId}`,
    REDIS_PREFIX: prefix,
  };
  const children: ChildProcess[] = [];
  const redis = createRedis(REDIS_URL);
  let ok: boolean;
  try {
    await connectMongo(engine.uri, env.MONGODB_DB);
    await ensureIndexes();
    await waitForRedis(redis);
    const keys = new RedisKeys(prefix);
    const api = await start('app', env);
    const bare = await start('bare', env);
    const drainer = await start('drainer', env);
    children.push(api.child, bare.child, drainer.child);
    const apiUrl = `http://127.0.0.1:${api.port}`;
    const bareUrl = `http://127.0.0.1:${bare.port}`;

    const { apiKey } = await createUser({
      email: `bench-${runId}@example.test`,
      username: `bench${runId}`,
      plan: 'bench',
    });
    const aliases = { warm: `warm-${runId}`, measured: `bench-${runId}` };
    await createBenchLink(apiUrl, apiKey, aliases.warm);
    const linkId = await createBenchLink(apiUrl, apiKey, aliases.measured);

    console.log(
      `warm-up ${WARMUP_S} s on each server; then ${CONNECTIONS} connections for ${DURATION_S} s on each; drainer ${PAUSE_DRAINER ? 'paused during the load' : 'running'}, batch ${DRAINER_BATCH}`,
    );
    await load(`${bareUrl}/${aliases.warm}`, WARMUP_S);
    await load(`${apiUrl}/${aliases.warm}`, WARMUP_S);
    const bareResult = await load(`${bareUrl}/${aliases.measured}`, DURATION_S);
    while ((await visitBacklog(redis, keys)) > 0) await sleep(100);

    if (PAUSE_DRAINER) drainer.child.kill('SIGSTOP');
    const phase = await measureApp(
      { redis, keys, api: api.child, url: `${apiUrl}/${aliases.measured}`, linkId },
      () => drainer.child.kill('SIGCONT'),
    );
    console.log(`\nbare Express handler answering the same 302`);
    console.log(
      `  ${fmt(bareResult.requests.average)} req/s, p99 ${bareResult.latency.p99} ms, ${fmt(code302(bareResult))} 302s`,
    );
    ok = report('linkqr GET /:alias with click recording', phase, bareResult);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await deleteKeys(redis, prefix).catch(() => undefined);
    redis.disconnect();
    await disconnectMongo();
    await engine.stop();
  }
  // Throughput on a shared machine is reported, not enforced; a lost or double-counted click fails.
  process.exit(ok ? 0 : 1);
}

const mode = (process.argv[2] ?? 'main') as Mode;
const entry: Record<Mode, () => void | Promise<void>> = {
  main,
  app: runApp,
  bare: runBare,
  drainer: runDrainer,
};
Promise.resolve(entry[mode]()).catch((err: unknown) => {
  console.error(`redirect bench (${mode}) failed:`, err);
  process.exit(1);
});
