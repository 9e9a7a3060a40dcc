import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONNECTIONS,
  fmt,
  freePort,
  load,
  LOCATION,
  median,
  sleep,
  type Run,
} from './support/bench-kit';
import { AuditEntry } from '../src/audit/audit.model';
import { readEmbeddedUri } from '../src/shared/infra/embedded-uri-file';
import { connectMongo, disconnectMongo } from '../src/shared/infra/mongo';
import { build, cli, startPinned, waitForOk, type Pinned } from './support/service';

type Role = 'api' | 'worker' | 'engine' | 'launcher';

function roleOf(command: string): Role {
  if (command.includes('dist/src/main.js')) return 'api';
  if (command.includes('dist/workers/main.js')) return 'worker';
  if (command.includes('jongodb') || command.includes('mongod')) return 'engine';
  return 'launcher';
}

/** CPU ms used so far by each role in a process tree. */
function cpuByRole(tree: Pinned): Record<Role, number> {
  const cpu: Record<Role, number> = { api: 0, worker: 0, engine: 0, launcher: 0 };
  for (const p of tree.tree()) cpu[roleOf(p.command)] += p.cpuMs;
  return cpu;
}

const totalOf = (cpu: Record<Role, number>) => Object.values(cpu).reduce((a, b) => a + b, 0);

/**
 * The table, like for like: the whole service started as `npm start` (API, worker, its
 * render threads and the embedded engine) pinned to core 0, the bare baselines pinned to core 0
 * too, and this process (the load generator) pinned to core 1. Each row is measured in
 * interleaved rounds (baseline and linkqr alternate, the first of a pair swapping every round), so
 * that load from others on a shared machine falls on both alike; ratios are of the medians.
 *
 * Every 302 served must show up as a click in the statistics (the drain is part of the cost of a
 * click): the bench waits for it after each redirect round, before the next measurement starts.
 *
 * BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_ROWS (redirect,list,qr,stats; add memory for the RSS
 * soak),
 * BENCH_MEMORY_SECONDS (300) and BENCH_CPU_PROF=<dir>
 * (profile the service's processes with `node --cpu-prof` instead of running `npm start`) adjust it.
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const ROWS = (process.env.BENCH_ROWS ?? 'redirect,list,qr,stats').split(',');
/** `BENCH_ROWS=memory` adds a redirect soak of this many seconds, sampling RSS. */
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 300);
const wanted = (row: string) => ROWS.includes(row);
const QR_BATCH = 60;
const QR_WARM_BATCHES = 5;
const CLICKS_WITHIN_MS = 2_000;
const P99_UNDER_MS = 5;
/** CPU on core 0 per counted click (API, worker, engine), in µs. */
const CPU_PER_CLICK_US = 50;
const root = path.resolve(__dirname, '..');

interface Api {
  url: string;
  key: string;
}

async function call<T>(api: Api, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${api.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

const clicksOf = async (api: Api, id: number) =>
  (await call<{ data: { clicks: number } }>(api, 'GET', `/api/url/${id}`)).data.clicks;

/** Waits until the statistics count `expected` clicks; answers how long after now it took. */
async function countedAfter(api: Api, id: number, expected: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const clicks = await clicksOf(api, id);
    if (clicks === expected) return Date.now() - started;
    if (clicks > expected) throw new Error(`${clicks} clicks counted for ${expected} 302s served`);
    if (Date.now() - started > 300_000) {
      throw new Error(`only ${clicks} of ${expected} clicks counted after 5 minutes`);
    }
    await sleep(50);
  }
}

interface QrBatch {
  /** Milliseconds from the start of the batch until each image was served. */
  servedMs: number[];
  ids: number[];
}

/** Creates `count` QR codes at once and waits until each image is served. */
async function qrBatch(api: Api, count: number, pollMs: number): Promise<QrBatch> {
  const started = Date.now();
  const codes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { id, link } = await call<{ id: number; link: string }>(api, 'POST', '/api/qr/add', {
        type: 'link',
        data: `https://example.com/qr-${i}-${randomBytes(3).toString('hex')}`,
        size: 512,
      });
      for (;;) {
        const res = await fetch(`${link}.png`);
        await res.arrayBuffer();
        if (res.status === 200) return { id, servedMs: Date.now() - started };
        if (res.status !== 202) throw new Error(`QR image answered ${res.status}`);
        await sleep(pollMs);
      }
    }),
  );
  return { servedMs: codes.map((c) => c.servedMs), ids: codes.map((c) => c.id) };
}

/**
 * Deletes a batch's codes, outside the measured time. The embedded engine scans whole
 * collections, so each insert and read costs more as they grow (an insert 64 ms at 3,000
 * documents): left in place, every round would run on more data than the one before. The same
 * holds for the audit log, to which every create and delete appends an entry: at the warm rounds'
 * ~1,000 entries its inserts cost the engine about 2 ms a code, 0.4 ms once cleared (measured
 * with 5 and 15 warm batches). So the entries of the batch's creates and deletes are removed too,
 * straight from the bench's own database, once all of them have been written (each is appended
 * after its answer); MongoDB's inserts do not grow with the collection, and need none of this.
 */
function qrCleanup(api: Api, userId: number) {
  const mine = { accountId: userId, type: 'qr' };
  return async (ids: number[]): Promise<void> => {
    for (let i = 0; i < ids.length; i += CONNECTIONS) {
      await Promise.all(
        ids.slice(i, i + CONNECTIONS).map((id) => call(api, 'DELETE', `/api/qr/${id}/delete`)),
      );
    }
    const deadline = Date.now() + 60_000;
    while ((await AuditEntry.countDocuments(mine)) < 2 * ids.length) {
      if (Date.now() > deadline) throw new Error("the QR codes' audit entries were not written");
      await sleep(50);
    }
    await AuditEntry.deleteMany(mine);
  };
}

async function baselineQr(url: string, count: number, publicUrl: string): Promise<number> {
  const res = await fetch(`${url}/baseline/qr`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count, prefix: `${publicUrl}/s/${randomBytes(2).toString('hex')}` }),
  });
  return count / ((await res.json()) as { seconds: number }).seconds;
}

/** A statistics read at all the run's clicks against one at ten (GET /api/url/:id). */
async function statisticsRead(
  api: Api,
  linkId: number,
  served: number,
  auth: Record<string, string>,
): Promise<void> {
  const small = await call<{ id: number; shorturl: string }>(api, 'POST', '/api/url/add', {
    url: LOCATION,
  });
  await load(`${api.url}${new URL(small.shorturl).pathname}`, 10, 302);
  await countedAfter(api, small.id, 10);
  const reads = { big: [] as number[], small: [] as number[] };
  for (let round = 0; round < 6; round += 1) {
    const order = round % 2 ? (['big', 'small'] as const) : (['small', 'big'] as const);
    for (const which of order) {
      const id = which === 'big' ? linkId : small.id;
      reads[which].push((await load(`${api.url}/api/url/${id}`, 1_000, 200, auth)).rps);
    }
  }
  const readBig = { rps: median(reads.big) };
  const readSmall = { rps: median(reads.small) };
  const readRatio = readSmall.rps / readBig.rps;
  console.log(`\nstatistics read (GET /api/url/:id)`);
  console.log(
    `  at ${fmt(served)} clicks ${fmt(readBig.rps)} req/s, at 10 clicks ${fmt(readSmall.rps)} req/s: the large read costs ${fmt(readRatio, 2)}x (target within 1.2x: ${readRatio <= 1.2 ? 'holds' : 'MISSED'})`,
  );
}

interface Row {
  what: string;
  unit: string;
  linkqr: number[];
  baseline: number[];
  target: number;
  notes: string[];
  /** CPU ms used on core 0, requests (codes) and wall time, summed over the rounds. */
  cpu: {
    linkqr: Record<Role, number>;
    baseline: number;
    linkqrCount: number;
    baselineCount: number;
    linkqrWallMs: number;
    baselineWallMs: number;
    /** CPU µs per request (code) of each round, all roles together: the spread of the sums. */
    linkqrRounds: number[];
    baselineRounds: number[];
  };
}

const emptyCpu = () => ({
  linkqr: { api: 0, worker: 0, engine: 0, launcher: 0 },
  baseline: 0,
  linkqrCount: 0,
  baselineCount: 0,
  linkqrWallMs: 0,
  baselineWallMs: 0,
  linkqrRounds: [] as number[],
  baselineRounds: [] as number[],
});

function ratioOf(row: Row): number {
  return median(row.linkqr) / median(row.baseline);
}

function printRow(row: Row): void {
  const ratio = ratioOf(row);
  console.log(`\n${row.what}`);
  console.log(`  linkqr   ${row.linkqr.map((x) => fmt(x, 1)).join(' / ')} ${row.unit}`);
  console.log(`  baseline ${row.baseline.map((x) => fmt(x, 1)).join(' / ')} ${row.unit}`);
  console.log(
    `  ratio of medians ${fmt(ratio, 2)}x (per round: ${row.linkqr.map((x, i) => fmt(x / (row.baseline[i] ?? 1), 2)).join(', ')}); target ${row.target}x: ${ratio >= row.target ? 'holds' : 'MISSED'}`,
  );
  const { cpu } = row;
  const ours = totalOf(cpu.linkqr) / cpu.linkqrCount;
  const theirs = cpu.baseline / cpu.baselineCount;
  const parts = (Object.keys(cpu.linkqr) as Role[])
    .map((role) => `${role} ${fmt((cpu.linkqr[role] / cpu.linkqrCount) * 1000)}`)
    .join(', ');
  console.log(
    `  CPU on core 0 per ${row.unit === 'codes/s' ? 'code' : 'request'}: linkqr ${fmt(ours * 1000)} µs (${parts}), baseline ${fmt(theirs * 1000)} µs: CPU ratio ${fmt(theirs / ours, 2)}x`,
  );
  if (cpu.linkqrRounds.length > 1 || cpu.baselineRounds.length > 1) {
    const rounds = (xs: number[]) => xs.map((x) => fmt(x)).join(' / ');
    console.log(
      `  the same per round (µs): linkqr ${rounds(cpu.linkqrRounds)}, baseline ${rounds(cpu.baselineRounds)}`,
    );
  }
  // Below about 90 % the core was not the limit: the load generator (one core of JS) was.
  const busy = (cpuMs: number, wallMs: number) => `${fmt((cpuMs / wallMs) * 100)} %`;
  console.log(
    `  core 0 busy during the runs: linkqr ${busy(totalOf(cpu.linkqr), cpu.linkqrWallMs)}, baseline ${busy(cpu.baseline, cpu.baselineWallMs)}`,
  );
  for (const note of row.notes) console.log(`  ${note}`);
}

function serviceRss(service: Pinned): Record<string, number> {
  const named: Record<string, number> = {};
  for (const p of service.tree()) {
    if (p.command.includes('dist/src/main.js')) named.api = p.rssKb;
    else if (p.command.includes('dist/workers/main.js')) named.worker = p.rssKb;
  }
  return named;
}

async function main(): Promise<void> {
  build();
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-bench-'));
  const [port, basePort, httpPort] = [await freePort(), await freePort(), await freePort()];
  const apiUrl = `http://127.0.0.1:${port}`;
  const baseUrl = `http://127.0.0.1:${basePort}`;
  const bareHttpUrl = `http://127.0.0.1:${httpPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    // Any free port for the worker's /metrics too: two benches on one machine must not collide.
    WORKER_PORT: '0',
    PUBLIC_URL: apiUrl,
    REDIS_PREFIX: `linkqr-bench-${runId}:`,
    RUNTIME_DIR: dir,
    PLAN_RATE_LIMITS: JSON.stringify({ bench: 1_000_000 }),
    // All the load comes from one address: the limiter still counts every redirect (its cost is
    // measured), but must not refuse the bench.
    PUBLIC_RATE_LIMIT: '1000000000',
    BASELINE_PORT: String(basePort),
    BASELINE_HTTP_PORT: String(httpPort),
    BASELINE_LOCATION: LOCATION,
  };
  delete env.MONGODB_URI;
  const command = CPU_PROF
    ? [process.execPath, '--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, 'dist/src/start.js']
    : ['npm', 'start'];
  const log = path.join(dir, 'service.log');
  const service = startPinned(0, command, env, log);
  const baseline = startPinned(
    0,
    [process.execPath, '--import', 'tsx', 'bench/support/baselines.ts'],
    env,
    path.join(dir, 'baselines.log'),
  );
  let failed = false;
  let connected = false;
  try {
    await waitForOk(`${apiUrl}/readyz`);
    await waitForOk(`${baseUrl}/baseline/ready`);
    const engineUri = readEmbeddedUri(dir);
    if (!engineUri) throw new Error(`the service wrote no embedded engine address in ${dir}`);
    await connectMongo(engineUri);
    connected = true;
    const user = await cli(
      [
        'user:create',
        '--email',
        `bench-${runId}@example.test`,
        '--username',
        `bench${runId}`,
        '--plan',
        'bench',
      ],
      env,
    );
    const api: Api = { url: apiUrl, key: user.apiKey as string };
    const deleteQrs = qrCleanup(api, user.id as number);
    const auth = { authorization: `Bearer ${api.key}` };
    // The first batch after a start, before anything else has run the QR path (no warm-up).
    let cold:
      { linkqr: number; baseline: number; cpu: Record<Role, number>; wallMs: number } | undefined;
    if (wanted('qr')) {
      const before = cpuByRole(service);
      const batch = await qrBatch(api, QR_BATCH, 100);
      const after = cpuByRole(service);
      await deleteQrs(batch.ids);
      const wallMs = Math.max(...batch.servedMs);
      const cpu = Object.fromEntries(
        (Object.keys(after) as Role[]).map((role) => [role, after[role] - before[role]]),
      ) as Record<Role, number>;
      cold = {
        linkqr: QR_BATCH / (wallMs / 1000),
        baseline: await baselineQr(baseUrl, QR_BATCH, apiUrl),
        cpu,
        wallMs,
      };
      const parts = (Object.keys(cpu) as Role[])
        .map((role) => `${role} ${fmt(cpu[role] / QR_BATCH, 1)}`)
        .join(', ');
      console.log(
        `cold QR batch: CPU on core 0 ${fmt(totalOf(cpu) / QR_BATCH, 1)} ms per code (${parts})`,
      );
    }
    const link = await call<{ id: number; shorturl: string }>(api, 'POST', '/api/url/add', {
      url: LOCATION,
    });
    const alias = new URL(link.shorturl).pathname;
    for (let i = 0; i < 15; i += 1) {
      const tag = `GTM-${randomBytes(4).toString('hex').toUpperCase().slice(0, 7)}`;
      await call(api, 'POST', '/api/pixel/add', { type: 'gtmpixel', name: `Pixel ${i}`, tag });
    }
    const listJson = await call<unknown>(api, 'GET', '/api/pixels');
    await fetch(`${baseUrl}/baseline/list`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(listJson),
    });

    // Warm-up, which also sizes each measured run to about BENCH_SECONDS.
    let served = 0;
    const warm = {
      redirect: await load(`${apiUrl}${alias}`, 3_000, 302),
      bare302: await load(`${baseUrl}${alias}`, 3_000, 302),
      bareHttp302: await load(`${bareHttpUrl}${alias}`, 3_000, 302),
      // Warmed only when measured, so a profile of one row shows that row alone.
      list: wanted('list') ? await load(`${apiUrl}/api/pixels`, 1_000, 200, auth) : undefined,
      bareList: wanted('list') ? await load(`${baseUrl}/api/pixels`, 1_000, 200) : undefined,
    };
    served += warm.redirect.ok;
    if (wanted('qr')) {
      // Like the other rows, QR codes are measured warm: the first batches ran at about 70 % of
      // the later ones' rate, V8 still compiling the create, render and image paths.
      for (let i = 0; i < QR_WARM_BATCHES; i += 1) {
        await deleteQrs((await qrBatch(api, QR_BATCH, 100)).ids);
        await baselineQr(baseUrl, QR_BATCH, apiUrl);
      }
    }
    await countedAfter(api, link.id, served);
    const amount = (r: Run, s: Run) => Math.max(1_000, Math.round(((r.rps + s.rps) / 2) * SECONDS));
    const redirectAmount = amount(warm.redirect, warm.redirect);
    const listAmount = warm.list && warm.bareList ? amount(warm.list, warm.bareList) : 0;
    const rssBefore = serviceRss(service);
    console.log(
      `service: ${CPU_PROF ? 'node --cpu-prof dist/src/start.js' : 'npm start'} under taskset -c 0; baselines under taskset -c 0; load (autocannon, ${CONNECTIONS} connections) under taskset -c 1`,
    );
    console.log(
      `${ROUNDS} interleaved rounds; ${fmt(redirectAmount)} redirects and ${fmt(listAmount)} list requests per run`,
    );

    const rows: Row[] = [
      {
        what: 'GET /:alias 302, every click counted (10 connections), against bare node:http',
        unit: 'req/s',
        linkqr: [],
        baseline: [],
        target: 0.33,
        notes: [],
        cpu: emptyCpu(),
      },
      {
        what: 'GET /:alias 302, every click counted (the same runs), against bare Express',
        unit: 'req/s',
        linkqr: [],
        baseline: [],
        target: 1,
        notes: [],
        cpu: emptyCpu(),
      },
      {
        what: `GET /api/pixels, 15 items, with key and rate limit, against bare Express`,
        unit: 'req/s',
        linkqr: [],
        baseline: [],
        target: 1,
        notes: [],
        cpu: emptyCpu(),
      },
      {
        what: `QR codes end to end, warm (${QR_BATCH} created at once -> each image served)`,
        unit: 'codes/s',
        linkqr: [],
        baseline: [],
        target: 3,
        notes: [],
        cpu: emptyCpu(),
      },
      {
        what: `QR codes end to end, the first batch after a start, against bare qrcode warm`,
        unit: 'codes/s',
        linkqr: cold ? [cold.linkqr] : [],
        baseline: [],
        target: 2,
        notes: cold
          ? [
              `bare qrcode's own first batch (cold, same process start): ${fmt(cold.baseline, 1)} codes/s`,
            ]
          : [],
        cpu: emptyCpu(),
      },
    ];
    const [redirectRow, expressRow, listRow, qrRow, coldRow] = rows as [Row, Row, Row, Row, Row];
    const p99s: number[] = [];
    const bareP99s: number[] = [];
    const drains: number[] = [];
    const bad: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const linkqrFirst = round % 2 === 1;
      /** Runs one side, adding the CPU its processes used (drain included) to the row. */
      const measured = async (
        side: 'linkqr' | 'baseline',
        run: () => Promise<[rate: number, count: number]>,
        row: Row,
      ) => {
        const tree = side === 'linkqr' ? service : baseline;
        const before = cpuByRole(tree);
        const [rate, count] = await run();
        // The time the requests took (not the idle tail before autocannon reports).
        const wallMs = (count / rate) * 1000;
        const after = cpuByRole(tree);
        const used = totalOf(after) - totalOf(before);
        if (side === 'linkqr') {
          for (const role of Object.keys(after) as Role[])
            row.cpu.linkqr[role] += after[role] - before[role];
          row.cpu.linkqrCount += count;
          row.cpu.linkqrWallMs += wallMs;
          row.cpu.linkqrRounds.push((used / count) * 1000);
        } else {
          row.cpu.baseline += used;
          row.cpu.baselineCount += count;
          row.cpu.baselineWallMs += wallMs;
          row.cpu.baselineRounds.push((used / count) * 1000);
        }
        row[side].push(rate);
      };
      const pair = async (
        ours: () => Promise<[number, number]>,
        theirs: () => Promise<[number, number]>,
        row: Row,
      ) => {
        if (linkqrFirst) await measured('linkqr', ours, row);
        await measured('baseline', theirs, row);
        if (!linkqrFirst) await measured('linkqr', ours, row);
      };
      if (wanted('redirect'))
        await pair(
          async () => {
            const run = await load(`${apiUrl}${alias}`, redirectAmount, 302);
            if (run.bad) bad.push(`${run.bad} redirects were not 302`);
            served += run.ok;
            p99s.push(run.p99);
            const drainMs = await countedAfter(api, link.id, served);
            drains.push(drainMs);
            // A click costs its drain too: the run ends when the last one is counted.
            return [run.ok / (run.ok / run.rps + drainMs / 1000), run.ok];
          },
          async () => {
            const run = await load(`${bareHttpUrl}${alias}`, redirectAmount, 302);
            bareP99s.push(run.p99);
            return [run.rps, run.ok];
          },
          redirectRow,
        );
      if (wanted('redirect'))
        await measured(
          'baseline',
          async () => {
            const run = await load(`${baseUrl}${alias}`, redirectAmount, 302);
            return [run.rps, run.ok];
          },
          expressRow,
        );
      if (wanted('list'))
        await pair(
          async () => {
            const run = await load(`${apiUrl}/api/pixels`, listAmount, 200, auth);
            if (run.bad) bad.push(`${run.bad} list requests were not 200`);
            return [run.rps, run.ok];
          },
          async () => {
            const run = await load(`${baseUrl}/api/pixels`, listAmount, 200);
            return [run.rps, run.ok];
          },
          listRow,
        );
      if (wanted('qr')) {
        const created: number[] = [];
        await pair(
          async () => {
            const batch = await qrBatch(api, QR_BATCH, 100);
            created.push(...batch.ids);
            return [QR_BATCH / (Math.max(...batch.servedMs) / 1000), QR_BATCH];
          },
          async () => [await baselineQr(baseUrl, QR_BATCH, apiUrl), QR_BATCH],
          qrRow,
        );
        await deleteQrs(created);
      }
    }
    const rssAfter = serviceRss(service);
    expressRow.linkqr = redirectRow.linkqr;
    expressRow.cpu = {
      ...expressRow.cpu,
      linkqr: redirectRow.cpu.linkqr,
      linkqrCount: redirectRow.cpu.linkqrCount,
      linkqrWallMs: redirectRow.cpu.linkqrWallMs,
      linkqrRounds: redirectRow.cpu.linkqrRounds,
    };
    coldRow.baseline = qrRow.baseline;
    // The first batch's own CPU, against bare qrcode's warm CPU (the row's baseline).
    coldRow.cpu = {
      ...qrRow.cpu,
      linkqr: cold?.cpu ?? qrRow.cpu.linkqr,
      linkqrCount: cold ? QR_BATCH : qrRow.cpu.linkqrCount,
      linkqrWallMs: cold?.wallMs ?? qrRow.cpu.linkqrWallMs,
      linkqrRounds: cold ? [(totalOf(cold.cpu) / QR_BATCH) * 1000] : qrRow.cpu.linkqrRounds,
    };

    redirectRow.notes.push(
      `p99 per linkqr run: ${p99s.join(' / ')} ms (target under ${P99_UNDER_MS} ms: ${Math.max(...p99s) < P99_UNDER_MS ? 'holds' : 'MISSED'}); bare node:http's runs: ${bareP99s.join(' / ')} ms`,
      `clicks counted ${fmt(served)} for ${fmt(served)} 302s served; all counted ${drains.map((d) => fmt(d / 1000, 1)).join(' / ')} s after each run (target ${CLICKS_WITHIN_MS / 1000} s: ${Math.max(...drains) <= CLICKS_WITHIN_MS ? 'holds' : 'MISSED'})`,
    );
    if (wanted('qr')) {
      const single: number[] = [];
      for (let i = 0; i < 10; i += 1) single.push(...(await qrBatch(api, 1, 5)).servedMs);
      qrRow.notes.push(
        `one code on an idle service, create -> image served: p50 ${fmt(median(single))} ms (target 50 ms: ${median(single) <= 50 ? 'holds' : 'MISSED'})`,
      );
    }
    if (wanted('redirect')) {
      const perClick = (totalOf(redirectRow.cpu.linkqr) / redirectRow.cpu.linkqrCount) * 1000;
      redirectRow.notes.push(
        `CPU per counted click ${fmt(perClick)} µs (target under ${CPU_PER_CLICK_US} µs: ${perClick < CPU_PER_CLICK_US ? 'holds' : 'MISSED'})`,
      );
    }
    for (const row of rows) if (row.linkqr.length && row.baseline.length) printRow(row);

    // Statistics read: the link above has every click of the run; a fresh one gets ten.
    if (wanted('stats')) await statisticsRead(api, link.id, served, auth);
    console.log(`\nmemory (RSS, KiB) after warm-up -> after the rounds`);
    for (const name of ['api', 'worker']) {
      const [b, a] = [rssBefore[name] ?? 0, rssAfter[name] ?? 0];
      console.log(`  ${name}: ${fmt(b)} -> ${fmt(a)} (${fmt(((a - b) / b) * 100, 1)} %)`);
    }
    if (wanted('memory')) {
      // Redirect load in chunks of about 30 s; the first chunk is the warm-up.
      const chunk = Math.round((redirectAmount / SECONDS) * 30);
      const samples: Array<Record<string, number>> = [];
      const started = Date.now();
      while (Date.now() - started < MEMORY_SECONDS * 1000) {
        const run = await load(`${apiUrl}${alias}`, chunk, 302);
        served += run.ok;
        await countedAfter(api, link.id, served);
        samples.push(serviceRss(service));
      }
      console.log(
        `\nmemory under redirect load for ${fmt((Date.now() - started) / 1000)} s (RSS, KiB, every ~30 s)`,
      );
      for (const name of ['api', 'worker']) {
        const series = samples.slice(1).map((x) => x[name] ?? 0);
        // RSS saws up and down with garbage collection: compare the first and last thirds' means.
        const third = Math.max(1, Math.floor(series.length / 3));
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        const drift = mean(series.slice(-third)) / mean(series.slice(0, third)) - 1;
        console.log(
          `  ${name}: ${series.map((x) => fmt(x)).join(' ')}; min ${fmt(Math.min(...series))}, max ${fmt(Math.max(...series))}; last third vs first third ${drift >= 0 ? '+' : ''}${fmt(drift * 100, 1)} % (target: flat within 10 %: ${Math.abs(drift) <= 0.1 ? 'holds' : drift < 0 ? 'MISSED, but downwards: memory given back, not leaked' : 'MISSED'})`,
        );
      }
    }
    if (bad.length) {
      failed = true;
      console.log(`\nERRORS: ${bad.join('; ')}`);
    }
  } catch (err) {
    failed = true;
    console.error('per-core bench failed:', err);
    console.error(`service log: ${log}`);
  } finally {
    if (connected) await disconnectMongo();
    await baseline.stop();
    await service.stop();
  }
  if (!failed) fs.rmSync(dir, { recursive: true, force: true });
  // Throughput on a shared machine is reported, not enforced; a click lost or counted twice fails.
  process.exit(failed ? 1 : 0);
}

if (process.env.LINKQR_BENCH_ON_CORE_1 === '1') {
  void main();
} else if (os.availableParallelism() < 2) {
  console.error('the per-core bench needs two cores (0 for the service, 1 for the load)');
  process.exit(1);
} else {
  // The load generator itself runs on core 1, away from the service and the baselines.
  const result = spawnSync(
    'taskset',
    ['-c', '1', process.execPath, '--import', 'tsx', __filename],
    { cwd: root, stdio: 'inherit', env: { ...process.env, LINKQR_BENCH_ON_CORE_1: '1' } },
  );
  process.exit(result.status ?? 1);
}
