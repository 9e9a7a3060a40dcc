import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { Queue, Worker } from 'bullmq';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../workers/webhooks/webhook-delivery.worker';
import {
  bullPrefix,
  QR_RENDER_QUEUE,
  qrFairShare,
  qrRenderJobFor,
  qrRenderJobId,
} from '../src/qr-codes/qr-codes.jobs';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { WEBHOOK_QUEUE, webhookFairShare } from '../src/webhooks/webhooks.jobs';
import { createRedisClient, type RedisClient } from '../src/shared/infra/redis-connections';
import type { QrRenderWorker } from '../workers/qr-render/qr-render.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { startQrWorker, waitForRender } from './support/qr';
import { client } from './support/http';
import { createLink, eventually } from './support/links';
import { createTestUser, uniqueName } from './support/users';

/** A webhook receiver that answers 200 after `delayMs`, recording each request's path and id. */
async function startSlowReceiver(delayMs: number): Promise<{
  url: string;
  /** In the order the requests arrived: the path's first segment (the user) and the delivery id. */
  arrivals: Array<{ user: string; delivery: string }>;
  close(): Promise<void>;
}> {
  const arrivals: Array<{ user: string; delivery: string }> = [];
  const server: Server = createServer((req, res) => {
    arrivals.push({
      user: (req.url ?? '').split('/')[1] ?? '',
      delivery: String(req.headers['linkqr-delivery']),
    });
    req.resume();
    setTimeout(() => res.end('ok'), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The job ids BullMQ's event stream says were moved to delayed (a put-back or a retry). */
async function delayedJobIds(redis: RedisClient, prefix: string, queue: string) {
  const entries = await redis.xrange(`${prefix}:${queue}:events`, '-', '+');
  const ids = new Set<string>();
  for (const [, fields] of entries) {
    const at = (name: string) => fields[fields.indexOf(name) + 1];
    if (at('event') === 'delayed') ids.add(String(at('jobId')));
  }
  return ids;
}

/** The longest run of `who`'s deliveries in a row. */
function longestRun(users: string[], who: string): number {
  let longest = 0;
  let run = 0;
  for (const user of users) {
    run = user === who ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/**
 * Issue 29, M7: two users flooding the delivery queue share the worker round-robin, and a third
 * user's one delivery is not queued behind either flood; nothing is put back to get there.
 */
describe('fair share: two users flooding webhook deliveries and a third with one (issue 29, M7)', function () {
  this.timeout(90_000);
  const concurrency = 2;
  let app: TestApp;
  let worker: WebhookWorker;
  let receiver: Awaited<ReturnType<typeof startSlowReceiver>>;

  before(async () => {
    app = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_ATTEMPTS: '2',
      REDIS_PREFIX: `${uniqueName('fairflood')}:`,
    });
    receiver = await startSlowReceiver(200);
    worker = startWebhookWorker(
      { config: app.config, logger: app.deps.logger, keys: app.deps.keys },
      { concurrency, timeoutMs: 5_000 },
    );
  });
  after(async () => {
    await worker.close();
    await receiver.close();
    await app.close();
  });

  async function userWithHooks(name: string, hooks: number) {
    const user = await createTestUser();
    const api = client(app.url, user.apiKey);
    for (let i = 0; i < hooks; i += 1) {
      const res = await api.post('/api/webhook/add', {
        url: `${receiver.url}/${name}/${i}`,
        events: ['link.created'],
      });
      expect(res.status, res.text).to.equal(200);
    }
    return user;
  }

  it("serves A's and B's thirty deliveries in turns and C's one within a turn, none put back", async () => {
    const a = await userWithHooks('a', 10);
    const b = await userWithHooks('b', 10);
    const c = await userWithHooks('c', 1);
    // Each link A creates queues ten deliveries at once; A's whole flood goes first, then B's.
    for (let i = 0; i < 3; i += 1)
      await createLink(app, a.apiKey, { url: `https://a.example/${i}` });
    for (let i = 0; i < 3; i += 1)
      await createLink(app, b.apiKey, { url: `https://b.example/${i}` });
    await eventually(
      async () => receiver.arrivals.some((x) => x.user === 'b'),
      "B's first delivery arrives",
      30_000,
    );
    await createLink(app, c.apiKey, { url: 'https://c.example/one' });
    // C's delivery is queued by now (the answer waits for it).
    const queuedC = receiver.arrivals.length;
    await eventually(async () => receiver.arrivals.length === 61, 'all 61 deliveries', 60_000);

    const order = receiver.arrivals.map((x) => x.user);
    // C's delivery joined the current turn: ahead of it, at most one waiting delivery each of A
    // and B (queued for that turn before it) and those the worker's slots had already taken
    // but whose request had not arrived yet. In FIFO order it would have waited for the rest of
    // both floods.
    expect(order.indexOf('c')).to.be.within(queuedC, queuedC + 2 + concurrency);
    // A's flood was queued first, yet B's started long before A's had run out: B's turns begin
    // at the one A's flood is at, and from there the two alternate. In FIFO order A's whole
    // flood would have gone first.
    const firstB = order.indexOf('b');
    expect(firstB, "B's first delivery started before A's flood ended").to.be.below(25);
    const shared = order.slice(firstB, order.lastIndexOf('a') + 1).filter((u) => u !== 'c');
    expect(longestRun(shared, 'a')).to.be.at.most(concurrency + 2);
    expect(longestRun(shared, 'b')).to.be.at.most(concurrency + 2);
    // Nothing was put back (moved to delayed) and nothing was delivered twice.
    const delivered = new Set(receiver.arrivals.map((x) => x.delivery));
    expect(delivered.size).to.equal(61);
    const delayed = await delayedJobIds(app.deps.redis, bullPrefix(app.deps.keys), WEBHOOK_QUEUE);
    expect([...delayed].filter((id) => delivered.has(id))).to.deep.equal([]);
    // Every delivery was released once it completed.
    const fair = webhookFairShare(app.deps.redis, app.deps.keys);
    await eventually(
      async () =>
        (await Promise.all([a, b, c].map((u) => fair.outstanding(u.user.id)))).every(
          (n) => n === 0,
        ),
      'no outstanding delivery counted',
      5_000,
    );
  });

  it("lets a newcomer's ten join the current round, not go before a flood half served", async () => {
    receiver.arrivals.length = 0;
    const e = await userWithHooks('e', 10);
    const f = await userWithHooks('f', 10);
    for (let i = 0; i < 3; i += 1)
      await createLink(app, e.apiKey, { url: `https://e.example/${i}` });
    await eventually(async () => receiver.arrivals.length >= 12, "E's flood under way", 30_000);
    await createLink(app, f.apiKey, { url: 'https://f.example/one' });
    await eventually(async () => receiver.arrivals.length === 40, 'all 40 deliveries', 60_000);

    // F's ten start at the turn E's flood is at, so the two alternate; counted from the first
    // turn instead, F's ten would all have gone before E's next.
    const order = receiver.arrivals.map((x) => x.user);
    const fromF = order.slice(order.indexOf('f'));
    expect(fromF.filter((u) => u === 'f')).to.have.length(10);
    expect(longestRun(fromF, 'f')).to.be.at.most(concurrency + 2);
    const fair = webhookFairShare(app.deps.redis, app.deps.keys);
    await eventually(
      async () => (await fair.outstanding(e.user.id)) + (await fair.outstanding(f.user.id)) === 0,
      'no outstanding delivery counted',
      5_000,
    );
  });

  it('releases a delivery that failed for good', async () => {
    const failing = await startSlowReceiver(0);
    const d = await createTestUser();
    // A receiver that is gone: the connection is refused on every attempt.
    await failing.close();
    expect(
      (
        await client(app.url, d.apiKey).post('/api/webhook/add', {
          url: `${failing.url}/d/0`,
          events: ['link.created'],
        })
      ).status,
    ).to.equal(200);
    const fair = webhookFairShare(app.deps.redis, app.deps.keys);
    const queue = new Queue(WEBHOOK_QUEUE, {
      connection: app.deps.redis,
      prefix: bullPrefix(app.deps.keys),
    });
    try {
      await createLink(app, d.apiKey, { url: 'https://d.example/one' });
      await eventually(async () => (await fair.outstanding(d.user.id)) === 1, 'counted', 5_000);
      // The retry delay is 30 s: the first failure leaves the job delayed, still outstanding;
      // promoted, its second and last attempt fails it for good.
      await eventually(
        async () => (await queue.getDelayed()).some((j) => j.data.userId === d.user.id),
        'the first attempt failed',
        10_000,
      );
      const job = (await queue.getDelayed()).find((j) => j.data.userId === d.user.id);
      expect(await fair.outstanding(d.user.id)).to.equal(1);
      await job?.promote();
      await eventually(
        async () => (await queue.getFailed()).some((j) => j.id === job?.id),
        'the delivery failed for good',
        20_000,
      );
      await eventually(async () => (await fair.outstanding(d.user.id)) === 0, 'released', 5_000);
    } finally {
      await queue.close();
    }
  });
});

/** Issue 29, M7: a render counted as outstanding that never ends (removed, or its worker crashed). */
describe('fair share: renders removed, queued twice or stalled (issue 29, M7)', function () {
  this.timeout(40_000);
  let app: TestApp;
  let connection: RedisClient;
  let worker: QrRenderWorker | undefined;

  before(async () => {
    app = await startTestApp({ REDIS_PREFIX: `${uniqueName('fairleak')}:` });
    connection = createRedisClient(app.config.redis, 'blocking');
  });
  after(async () => {
    await worker?.close();
    connection.disconnect();
    await app.close();
  });

  async function plainCode(apiKey: string) {
    const created = await client(app.url, apiKey).post<{ id: number }>('/api/qr/add', {
      type: 'text',
      data: uniqueName('fair'),
    });
    expect(created.status, created.text).to.equal(200);
    const qr = await QrCode.findOne({ id: created.body.id }).lean();
    if (!qr) throw new Error('the code was not stored');
    return qr;
  }

  it('counts a version queued twice once, and a sweep forgets a removed job', async () => {
    const { user, apiKey } = await createTestUser();
    const qr = await plainCode(apiKey);
    // The render sweep queues a pending code's version again; that must not count it again.
    await app.deps.qrQueue.enqueue(qrRenderJobFor(qr));
    const fair = qrFairShare(app.deps.redis, app.deps.keys, 0);
    expect(await fair.outstanding(user.id)).to.equal(1);

    const queue = new Queue(QR_RENDER_QUEUE, { connection, prefix: bullPrefix(app.deps.keys) });
    try {
      expect(await queue.remove(qrRenderJobId(qrRenderJobFor(qr)))).to.equal(1);
    } finally {
      await queue.close();
    }
    expect(await fair.outstanding(user.id)).to.equal(1);
    expect(await fair.sweep()).to.equal(1);
    expect(await fair.outstanding(user.id)).to.equal(0);
  });

  it('releases a render whose worker crashed mid-job, once another renders it', async () => {
    const { user, apiKey } = await createTestUser();
    const qr = await plainCode(apiKey);
    const fair = qrFairShare(app.deps.redis, app.deps.keys);
    // A worker takes the job and dies: its lock is never renewed, nor the job finished.
    const crashed = new Worker(QR_RENDER_QUEUE, null, {
      connection,
      prefix: bullPrefix(app.deps.keys),
      lockDuration: 500,
      autorun: false,
    });
    const taken = await crashed.getNextJob('crashed-worker');
    expect(taken?.id).to.equal(qrRenderJobId(qrRenderJobFor(qr)));
    expect(await fair.outstanding(user.id)).to.equal(1);

    worker = startQrWorker(app, { stalledInterval: 300, lockDuration: 5_000 });
    expect((await waitForRender(app, apiKey, qr.id, 20_000)).status).to.equal('ready');
    await eventually(async () => (await fair.outstanding(user.id)) === 0, 'released', 5_000);
    await crashed.close(true);
  });
});
