import { execFileSync, fork, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';
import { connectMongo, disconnectMongo, ensureIndexes } from '../src/shared/infra/mongo';
import { standaloneRedis, waitForRedis } from '../src/shared/infra/redis-connections';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { visitBacklog } from '../src/visits/visit-drainer';
import { DRAINER_GROUP, visitStreamKey } from '../src/visits/visit-stream';
import { createUser } from '../src/users/users.service';

/**
 * Link behaviour's cost, like for like in one run: the direct link's bare 302 on the code before
 * link behaviour existed ("before", unpacked from git) and on this checkout ("after"), and a pixel
 * page against that 302, and a link with 10 redirect rules (issue 24) against that 302. Each app runs pinned to core 0 (`taskset -c 0`), autocannon to core 1,
 * in interleaved rounds so that drift on a shared machine hits every side alike.
 *
 * BENCH_BASELINE_REF names the "before" commit; by default it is the parent of the commit that
 * added link behaviour (src/links/link-behaviour.schemas.ts).
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const WARMUP_S = 2;
const CONNECTIONS = 10;
const DIRECT_TOLERANCE = 0.05;
const ROOT = path.resolve(__dirname, '..');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

function baselineRef(): string {
  if (process.env.BENCH_BASELINE_REF) return process.env.BENCH_BASELINE_REF;
  const added = git(
    'log',
    '--diff-filter=A',
    '--format=%H',
    '--',
    'src/links/link-behaviour.schemas.ts',
  )
    .split('\n')
    .filter(Boolean)
    .at(-1);
  if (!added) throw new Error('no commit adds link behaviour: set BENCH_BASELINE_REF');
  return `${added}^`;
}

/** The baseline's sources in a temporary directory, sharing this checkout's node_modules. */
function unpack(ref: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-baseline-'));
  // The dashboard (from issue 14 on) serves web/ beside src/.
  const hasWeb = spawnSync('git', ['cat-file', '-e', `${ref}:web`], { cwd: ROOT }).status === 0;
  const paths = ['src', ...(hasWeb ? ['web'] : []), 'tsconfig.json', 'package.json'];
  const archive = execFileSync('git', ['archive', ref, ...paths], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Starts a runner from bench/support on core 0; resolves with the port it reports. */
function startOnCore0(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; port: number }> {
  const runner = path.join(__dirname, 'support', script);
  const root = args[0] ?? ROOT;
  const node = hasTaskset ? 'taskset' : process.execPath;
  const child = fork(runner, args, {
    env,
    cwd: root,
    execArgv: ['--import', 'tsx'],
    ...(hasTaskset
      ? { execPath: node, execArgv: ['-c', '0', process.execPath, '--import', 'tsx'] }
      : {}),
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${script} ${args.join(' ')} exited with code ${code}`)),
    );
    child.on('message', (m: { port: number }) => resolve({ child, port: m.port }));
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

async function api(url: string, key: string, body: Record<string, unknown>, path_: string) {
  const res = await fetch(`${url}${path_}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${path_} answered ${res.status}: ${await res.text()}`);
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

interface Side {
  label: string;
  url: string;
  status: number;
  /** Answers per second during the load. */
  rates: number[];
  /** Answers per second of load plus the time the drainer then needed to store their clicks. */
  drained: number[];
  /** CPU µs the app's process spent per answer during the load (steadier than rates when shared). */
  cpuUs: number[];
  /** The app process that answers this side. */
  pid: number;
  wrong: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TICK_MS =
  1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout || 100);

/** CPU ms (user and system, all threads) `pid` has used so far, from /proc (10 ms resolution). */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Milliseconds until every queued click has been stored (nothing in the stream nor pending). */
async function drainTime(redis: Redis, keys: RedisKeys): Promise<number> {
  const start = Date.now();
  for (;;) {
    const backlog = await visitBacklog(redis, keys);
    const [pending] = (await redis.xpending(visitStreamKey(keys), DRAINER_GROUP)) as [number];
    if (backlog === 0 && pending === 0) return Date.now() - start;
    await sleep(20);
  }
}

/** The middle round: one disturbed round on a shared machine does not move it. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  if (hasTaskset && process.env.BENCH_PINNED !== '1') {
    // The load generator takes core 1; the apps are started on core 0.
    const again = spawnSync(
      'taskset',
      ['-c', '1', process.execPath, ...process.execArgv, __filename],
      {
        stdio: 'inherit',
        env: { ...process.env, BENCH_PINNED: '1' },
      },
    );
    process.exit(again.status ?? 1);
  }
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const prefix = `linkqr-bench-${runId}:`;
  const ref = baselineRef();
  const baseline = unpack(ref);
  const engine = await startEmbeddedMongo();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: '0',
    PUBLIC_URL: 'http://linkqr.bench',
    LOG_LEVEL: 'warn',
    REDIS_URL,
    MONGODB_URI: engine.uri,
    MONGODB_DB: `bench_${runId}`,
    REDIS_PREFIX: prefix,
    // The load comes from one address: the address limiter counts it but must not refuse it.
    PUBLIC_RATE_LIMIT: '1000000000',
  };
  const redis = standaloneRedis(REDIS_URL, 'request');
  const children: ChildProcess[] = [];
  try {
    await connectMongo(engine.uri, env.MONGODB_DB);
    await ensureIndexes();
    await waitForRedis(redis);
    const beforeApp = await startOnCore0('serve-app.ts', [baseline], env);
    const afterApp = await startOnCore0('serve-app.ts', [ROOT], env);
    const drainer = await startOnCore0('drain-visits.ts', [], env);
    children.push(beforeApp.child, afterApp.child, drainer.child);
    const keys = new RedisKeys(prefix);
    const beforeUrl = `http://127.0.0.1:${beforeApp.port}`;
    const afterUrl = `http://127.0.0.1:${afterApp.port}`;

    const { apiKey } = await createUser({
      email: `bench-${runId}@example.test`,
      username: `bench${runId}`,
      plan: 'bench',
    });
    const target = 'https://example.com/landing?utm_source=bench';
    const pixelId = await api(
      afterUrl,
      apiKey,
      { type: 'fbpixel', name: 'fb', tag: '123456789012345' },
      '/api/pixel/add',
    );
    await api(afterUrl, apiKey, { url: target, custom: `d-${runId}` }, '/api/url/add');
    await api(
      afterUrl,
      apiKey,
      { url: target, custom: `p-${runId}`, pixels: [pixelId] },
      '/api/url/add',
    );

    // Ten rules over every kind of key, the bench's visitor (Chrome on Windows, from 127.0.0.1, no
    // query, language or referrer) matching only the last: every rule is tried on every visit.
    const rules = [
      { url: 'https://example.com/r1', when: { query: { utm_source: 'newsletter' } } },
      { url: 'https://example.com/r2', when: { ip: ['10.0.0.0/8', '2001:db8::/32'] } },
      { url: 'https://example.com/r3', when: { country: ['CA', 'MX'], device: ['mobile'] } },
      { url: 'https://example.com/r4', when: { language: ['fr', 'de'] } },
      { url: 'https://example.com/r5', when: { referrer: ['news.example.org'] } },
      {
        url: 'https://example.com/r6',
        when: { after: '2020-01-01T00:00:00+01:00', before: '2020-01-03T00:00:00+01:00' },
      },
      { url: 'https://example.com/r7', when: { device: ['iphone', 'ipad'] } },
      { url: 'https://example.com/r8', when: { os: ['iOS', 'Android'] } },
      { url: 'https://example.com/r9', when: { browser: ['Firefox'], os: ['Windows'] } },
      { url: 'https://example.com/r10', when: { browser: ['Chrome'], device: ['desktop'] } },
    ];
    await api(afterUrl, apiKey, { url: target, custom: `r-${runId}`, rules }, '/api/url/add');

    const side = (label: string, url: string, status: number, pid: number): Side => ({
      label,
      url,
      status,
      rates: [],
      drained: [],
      cpuUs: [],
      pid,
      wrong: 0,
    });
    const [beforePid, afterPid] = [beforeApp.child.pid ?? 0, afterApp.child.pid ?? 0];
    const sides = [
      side(`direct 302, before (${ref})`, `${beforeUrl}/d-${runId}`, 302, beforePid),
      side('direct 302, after', `${afterUrl}/d-${runId}`, 302, afterPid),
      side('pixel page (200), after', `${afterUrl}/p-${runId}`, 200, afterPid),
      side('10 rules 302, after', `${afterUrl}/r-${runId}`, 302, afterPid),
    ];
    console.log(
      `${ROUNDS} interleaved rounds of ${DURATION_S} s per side, ${CONNECTIONS} connections; apps ${hasTaskset ? 'on core 0, load on core 1' : 'unpinned (no taskset)'}`,
    );
    for (const s of sides) await load(s.url, WARMUP_S);
    await drainTime(redis, keys);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const side of sides) {
        const cpuBefore = cpuMsOf(side.pid);
        const result = await load(side.url, DURATION_S);
        side.cpuUs.push(((cpuMsOf(side.pid) - cpuBefore) * 1000) / result.requests.total);
        side.rates.push(result.requests.average);
        const drainMs = await drainTime(redis, keys);
        side.drained.push(result.requests.total / (DURATION_S + drainMs / 1000));
        const stats = result.statusCodeStats as Record<string, { count?: number }> | undefined;
        const ok = stats?.[String(side.status)]?.count ?? 0;
        side.wrong += result.requests.total - ok + result.errors;
      }
    }
    for (const s of sides) {
      console.log(
        `  ${s.label}: ${fmt(median(s.drained))} clicks/s with their drain (rounds ${s.drained.map(fmt).join(', ')}); ${fmt(median(s.rates))} req/s under load alone; app CPU ${fmt(median(s.cpuUs))} µs a request (rounds ${s.cpuUs.map(fmt).join(', ')}); ${s.wrong} unexpected answers`,
      );
    }
    const ratio = (pick: (s: Side) => number[], x: Side, y: Side) =>
      median(pick(x)) / median(pick(y));
    const [before, after, pixel, ruled] = sides as [Side, Side, Side, Side];
    const change = ratio((s) => s.drained, after, before) - 1;
    const verdict =
      change >= -DIRECT_TOLERANCE
        ? `no slower than the ${DIRECT_TOLERANCE * 100} % budget allows`
        : `SLOWER than the ${DIRECT_TOLERANCE * 100} % budget allows`;
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    console.log(
      `direct 302 after/before: ${pct(1 + change)} with drain, ${pct(ratio((s) => s.rates, after, before))} under load alone: ${verdict}`,
    );
    console.log(
      `pixel page / direct 302 (after): ${pct(ratio((s) => s.drained, pixel, after))} with drain, ${pct(ratio((s) => s.rates, pixel, after))} under load alone`,
    );
    const rulesRatio = ratio((s) => s.drained, ruled, after);
    console.log(
      `10 rules / direct 302 (after, same core): ${pct(rulesRatio)} with drain, ${pct(ratio((s) => s.rates, ruled, after))} under load alone: ${rulesRatio >= 0.9 ? 'within' : 'OUTSIDE'} the 0.9x budget`,
    );
    // One core serves each app, so the difference of the inverse rates is the added cost.
    const extraUs = (1 / median(ruled.rates) - 1 / median(after.rates)) * 1e6;
    console.log(`10 rules cost ${extraUs.toFixed(1)} µs more per redirect than the direct 302`);
    // CPU per request does not move with the other work on a shared core, as rates do: the
    // direct 302's CPU over the 10 rules' CPU is the rate ratio an idle core would give.
    const cpuRatio = median(after.cpuUs) / median(ruled.cpuUs);
    console.log(
      `10 rules / direct 302 by app CPU a request: ${pct(cpuRatio)} (${fmt(median(ruled.cpuUs))} against ${fmt(median(after.cpuUs))} µs; ${(median(ruled.cpuUs) - median(after.cpuUs)).toFixed(1)} µs more): ${cpuRatio >= 0.9 ? 'within' : 'OUTSIDE'} the 0.9x budget`,
    );
    if (sides.some((s) => s.wrong > 0)) process.exitCode = 1;
  } finally {
    // Stopped before their keys go, so the drainer never reads a stream that was just deleted.
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await deleteKeys(redis, prefix).catch(() => undefined);
    redis.disconnect();
    await disconnectMongo();
    await engine.stop();
    fs.rmSync(baseline, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error('link pages bench failed:', err);
  process.exit(1);
});
