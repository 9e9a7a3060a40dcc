import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../src/shared/infra/embedded-mongo';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { visitPartitionOf, visitStreamKey } from '../../src/visits/visit-stream';
import { baseEnv } from '../support/environment';
import { client, request } from '../support/http';
import { eventually } from '../support/links';
import {
  createUserWithCli,
  startApiProcess,
  startService,
  type ServiceProcess,
} from '../support/processes';
import { TestCluster } from '../support/redis-topologies';
import { CHROME } from '../support/stats';
import { uniqueName } from '../support/users';
import { root } from '../support/launcher';

const CLICKS = 2000;

/** The sum of a metric's samples (Prometheus text) whose labels contain `labels`. */
function metricSum(text: string, name: string, labels = ''): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/**
 * The real entry points, each its own OS process: two API processes (`src/main.ts`) and two
 * workers (`workers/main.ts`) against one private Redis Cluster and one MongoDB-compatible
 * engine, as an operator past one machine runs them.
 */
describe('on a Redis Cluster: two API processes and two workers, as separate processes', function () {
  this.timeout(180_000);
  let cluster: TestCluster;
  let engine: EmbeddedMongo;
  const apis: Array<ServiceProcess & { url: string }> = [];
  const workers: Array<ServiceProcess & { url: string }> = [];
  let key: string;
  let cliEnv: NodeJS.ProcessEnv;

  before(async () => {
    [cluster, engine] = await Promise.all([TestCluster.start(), startEmbeddedMongo()]);
    const env = {
      ...baseEnv(),
      MONGODB_URI: engine.uri,
      MONGODB_DB: 'many',
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_URL: 'redis://unused:1',
      REDIS_PREFIX: `${baseEnv().REDIS_PREFIX}${uniqueName('many')}:`,
      SHUTDOWN_TIMEOUT_MS: '5000',
      PLAN_RATE_LIMITS: JSON.stringify({ test: 100_000, tiny: 3 }),
    };
    cliEnv = env;
    // The deployment's migration step first, as docker compose runs it: the indexes.
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'db:migrate'],
      {
        cwd: root,
        env: { PATH: process.env.PATH, ...env },
      },
    );
    const startWorker = async () => {
      const worker = startService('workers/main.ts', { ...env, WORKER_PORT: '0' });
      const line = await worker.waitForLine(/linkqr worker started/, 60_000);
      const { port } = JSON.parse(line) as { port: number };
      return { ...worker, url: `http://127.0.0.1:${port}` };
    };
    const username = uniqueName('many');
    // Two at a time: four processes compiling their TypeScript at once starve a small machine.
    for (const start of [() => startApiProcess(env), startWorker]) {
      const started = await Promise.allSettled([start(), start()]);
      // Whatever started is stopped after, even when another did not.
      for (const result of started) {
        if (result.status === 'fulfilled')
          (start === startWorker ? workers : apis).push(result.value);
      }
      for (const result of started) if (result.status === 'rejected') throw result.reason;
    }
    key = (
      await createUserWithCli(env, { email: `${username}@example.test`, username, plan: 'test' })
    ).apiKey;
  });
  after(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    await engine?.stop();
    await cluster?.stop();
  });

  it('counts 2,000 clicks spread over both APIs exactly once, and renders QR codes made on both once each', async () => {
    // Links and QR codes made on both APIs, one at a time: ids come from one counter document,
    // which the embedded engine hands out reliably to one caller at a time only.
    const links: Array<{ id: number; alias: string }> = [];
    const codes: number[] = [];
    for (let n = 0; n < 6; n += 1) {
      const api = apis[n % 2]!;
      const link = await client(api.url, key).post<{ id: number; shorturl: string }>(
        '/api/url/add',
        { url: `https://example.com/many/${n}` },
      );
      expect(link.status, link.text).to.equal(200);
      links.push({ id: link.body.id, alias: new URL(link.body.shorturl).pathname.slice(1) });
      const qr = await client(api.url, key).post<{ id: number }>('/api/qr/add', {
        type: 'text',
        data: `made on API ${n % 2}, code ${n}`,
      });
      expect(qr.status, qr.text).to.equal(200);
      codes.push(qr.body.id);
    }

    const served = new Map<number, number>();
    for (let i = 0; i < CLICKS; i += 20) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const link = links[(i + j) % links.length]!;
          const api = apis[(i + j) % 2]!;
          const res = await request(api.url, `/${link.alias}`, {
            headers: { 'user-agent': CHROME },
          });
          return { link, status: res.status };
        }),
      );
      for (const { link, status } of answers) {
        expect(status).to.equal(302);
        served.set(link.id, (served.get(link.id) ?? 0) + 1);
      }
    }

    const clicksOf = async (id: number, api: { url: string }) =>
      (await client(api.url, key).get<{ data: { clicks: number } }>(`/api/url/${id}`)).body.data
        .clicks;
    let counted = 0;
    await eventually(
      async () => {
        counted = 0;
        for (const link of links) counted += await clicksOf(link.id, apis[1]!);
        return counted >= CLICKS;
      },
      'every click counted',
      60_000,
    );
    for (const link of links) {
      expect(await clicksOf(link.id, apis[0]!), `link ${link.id}`).to.equal(served.get(link.id));
    }

    for (const id of codes) {
      await eventually(
        async () => {
          const res = await client(apis[(id % 2) as 0 | 1]!.url, key).get<{
            details: { status: string };
          }>(`/api/qr/${id}`);
          return res.body.details.status === 'ready';
        },
        `QR ${id} rendered`,
        60_000,
      );
    }
    // Once each: the two workers' render counts add up to one per code.
    let renders = 0;
    for (const worker of workers) {
      // The worker's own server, not the API: plain fetch, not the OpenAPI-checking client (a
      // worker can get a port an API of an earlier test had, whose document would be applied).
      const metrics = await (await fetch(`${worker.url}/metrics`)).text();
      renders += metricSum(metrics, 'linkqr_qr_renders_total', 'outcome="ready"');
    }
    expect(renders, 'renders').to.equal(codes.length);
    for (const worker of workers) {
      expect((await fetch(`${worker.url}/healthz`)).status).to.equal(200);
    }
  });

  it('shares one rate limit, and serves an update made on one API from the other', async () => {
    const username = uniqueName('tiny');
    const tiny = await createUserWithCli(cliEnv, {
      email: `${username}@example.test`,
      username,
      plan: 'tiny',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      statuses.push((await client(apis[i % 2]!.url, tiny.apiKey).get('/api/account')).status);
    }
    // The plan's 3 a minute are 3 across both processes.
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);

    const created = await client(apis[0]!.url, key).post<{ id: number; shorturl: string }>(
      '/api/url/add',
      { url: 'https://example.com/before' },
    );
    const alias = new URL(created.body.shorturl).pathname;
    const location = async () =>
      (await request(apis[1]!.url, alias, { headers: { 'user-agent': CHROME } })).headers.get(
        'location',
      );
    expect(await location()).to.equal('https://example.com/before');
    // The other API holds the link in its cache (its cache bus is live), whose entries live a
    // minute: the update can reach it within the wait below only through the invalidation.
    const hits = async () =>
      metricSum(
        await (await fetch(`${apis[1]!.url}/metrics`)).text(),
        'linkqr_cache_lookups_total',
        'cache="links",result="hit"',
      );
    // The create's own invalidation (of a cached "no such alias") may reach this API after its
    // first answer and drop the entry once: ask until an answer comes from the cache.
    await eventually(
      async () => {
        const hitsBefore = await hits();
        expect(await location()).to.equal('https://example.com/before');
        return (await hits()) === hitsBefore + 1;
      },
      'the other API serves the link from its cache',
      10_000,
    );

    const updated = await client(apis[0]!.url, key).put(`/api/url/${created.body.id}/update`, {
      url: 'https://example.com/after',
    });
    expect(updated.status, updated.text).to.equal(200);
    const answered = Date.now();
    await eventually(
      async () => (await location()) === 'https://example.com/after',
      'the other API serves the update',
      10_000,
    );
    // Reported, not asserted (no timed assertions): the issue asks for under a second.
    process.stdout.write(
      `      the other API served the update ${Date.now() - answered} ms after it was answered\n`,
    );
  });

  it('no process logged a VISIT_STREAM_PARTITIONS mismatch; an API started with another count does', async () => {
    for (const p of [...apis, ...workers]) {
      expect(p.lines.filter((l) => l.includes('VISIT_STREAM_PARTITIONS'))).to.deep.equal([]);
    }
    const odd = await startApiProcess({ ...cliEnv, VISIT_STREAM_PARTITIONS: '8' });
    try {
      const line = JSON.parse(
        await odd.waitForLine(/VISIT_STREAM_PARTITIONS is 8 in this api process but 4/),
      ) as { level: number; partitions: number; recorded: number };
      expect(line).to.include({ level: 50, partitions: 8, recorded: 4 });
    } finally {
      await odd.stop();
    }
  });
  it('keeps redirecting on both APIs through a master killed under load, recovers /api and the QR workers, and counts every 302 once', async () => {
    const links: Array<{ id: number; alias: string }> = [];
    for (let n = 0; n < 8; n += 1) {
      const link = await client(apis[n % 2]!.url, key).post<{ id: number; shorturl: string }>(
        '/api/url/add',
        { url: `https://example.com/failover/${n}` },
      );
      expect(link.status, link.text).to.equal(200);
      links.push({ id: link.body.id, alias: new URL(link.body.shorturl).pathname });
    }
    const served = new Map<number, number>(links.map((l) => [l.id, 0]));
    const redirect = async (api: { url: string }, link: { id: number; alias: string }) => {
      const res = await request(api.url, link.alias, { headers: { 'user-agent': CHROME } });
      if (res.status === 302) served.set(link.id, (served.get(link.id) ?? 0) + 1);
      return res.status;
    };
    // Cached in both processes before the loss.
    for (const link of links)
      for (const api of apis) expect(await redirect(api, link)).to.equal(302);

    // The master of the first link's click partition: its clicks must survive the failover.
    const keys = new RedisKeys(cliEnv.REDIS_PREFIX as string);
    const victim = await cluster.masterOf(
      visitStreamKey(keys, visitPartitionOf('link', links[0]!.id, 4)),
    );
    let failed = 0;
    const load = async (api: { url: string }, until: number) => {
      for (let i = 0; Date.now() < until; i += 1) {
        if ((await redirect(api, links[i % links.length]!)) !== 302) failed += 1;
      }
    };
    const until = Date.now() + 6000;
    const running = Promise.all(apis.map((api) => load(api, until)));
    await new Promise((r) => setTimeout(r, 1500));
    await cluster.kill(victim);
    await running;
    expect(failed, 'redirects not answered 302').to.equal(0);

    await cluster.waitHealthy();
    for (const api of apis) {
      await eventually(
        async () => (await client(api.url, key).get('/api/account')).status === 200,
        '/api answers again',
        30_000,
      );
    }
    const clicksOf = async () => {
      const ready = await Promise.all(
        apis.map(async (api) => {
          const res = await fetch(`${api.url}/readyz`);
          return ((await res.json()) as { clicks: { spooled: number; lost: number } }).clicks;
        }),
      );
      return {
        spooled: ready.reduce((sum, c) => sum + c.spooled, 0),
        lost: ready.reduce((sum, c) => sum + c.lost, 0),
      };
    };
    // The BullMQ workers resume: a QR code made after the failover, on each API, is rendered.
    for (const api of apis) {
      const qr = await client(api.url, key).post<{ id: number }>('/api/qr/add', {
        type: 'text',
        data: `after the failover, on ${api.url}`,
      });
      expect(qr.status, qr.text).to.equal(200);
      await eventually(
        async () =>
          (await client(api.url, key).get<{ details: { status: string } }>(`/api/qr/${qr.body.id}`))
            .body.details.status === 'ready',
        'a QR code made after the failover rendered',
        60_000,
      );
    }
    await eventually(async () => (await clicksOf()).spooled === 0, 'the spools flushed', 30_000);
    const total = [...served.values()].reduce((a, b) => a + b, 0);
    const counted = async () => {
      let sum = 0;
      for (const link of links) {
        sum += (
          await client(apis[0]!.url, key).get<{ data: { clicks: number } }>(`/api/url/${link.id}`)
        ).body.data.clicks;
      }
      return sum;
    };
    await eventually(async () => (await counted()) >= total, 'every 302 counted', 60_000);
    // Settled: a click counted twice would show now.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await clicksOf()).lost, 'clicks reported lost').to.equal(0);
    for (const link of links) {
      const res = await client(apis[1]!.url, key).get<{ data: { clicks: number } }>(
        `/api/url/${link.id}`,
      );
      expect(res.body.data.clicks, `link ${link.id}`).to.equal(served.get(link.id));
    }
  });
});
