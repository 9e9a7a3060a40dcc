import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../workers/webhooks/webhook-delivery.worker';
import { bullPrefix, QR_RENDER_QUEUE, qrFairShare } from '../src/qr-codes/qr-codes.jobs';
import { WEBHOOK_QUEUE, webhookFairShare } from '../src/webhooks/webhooks.jobs';
import type { RedisClient } from '../src/shared/infra/redis-connections';
import type { QrRenderWorker } from '../workers/qr-render/qr-render.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { startBlackHole } from './support/black-hole';
import {
  servePng,
  solidLogo,
  startLogoServer,
  startQrWorker,
  waitForRender,
  type LogoServer,
} from './support/qr';
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
    // C's delivery (rank 1) had ahead of it at most one delivery each of A and B of rank 1 and
    // those the worker's slots had already taken but whose request had not arrived yet. In FIFO
    // order it would have waited for the rest of both floods.
    expect(order.indexOf('c')).to.be.within(queuedC, queuedC + 2 + concurrency);
    // A's flood was queued first, yet B's started long before A's had run out; once B's
    // deliveries were in, the two took turns. B caught up first (its ranks from 1), in a run no
    // longer than A's lead. In FIFO order A's whole flood would have gone first.
    const firstB = order.indexOf('b');
    expect(firstB, "B's first delivery started before A's flood ended").to.be.below(25);
    const shared = order.slice(firstB, order.lastIndexOf('a') + 1).filter((u) => u !== 'c');
    expect(longestRun(shared, 'a')).to.be.at.most(concurrency + 2);
    expect(longestRun(shared, 'b')).to.be.at.most(firstB + concurrency + 2);
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

/**
 * Issue 29, M7: a user whose targets time out retries each delivery; a retry keeps its job's
 * rank, so it never goes before another user's new delivery of a lower rank.
 */
describe("fair share: a flood's retries do not go before another user's delivery (issue 29, M7)", function () {
  this.timeout(60_000);
  const concurrency = 2;
  let app: TestApp;
  let worker: WebhookWorker;
  let hole: Awaited<ReturnType<typeof startBlackHole>>;
  let receiver: Awaited<ReturnType<typeof startSlowReceiver>>;

  before(async () => {
    app = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_DELAY_MS: '100',
      WEBHOOK_ATTEMPTS: '4',
      REDIS_PREFIX: `${uniqueName('fairretry')}:`,
    });
    hole = await startBlackHole();
    receiver = await startSlowReceiver(0);
    worker = startWebhookWorker(
      { config: app.config, logger: app.deps.logger, keys: app.deps.keys },
      { concurrency, timeoutMs: 300 },
    );
  });
  after(async () => {
    await hole.close();
    await worker.close();
    await receiver.close();
    await app.close();
  });

  it("starts B's delivery after at most one more of A's, though A's retries keep coming back", async () => {
    const a = await createTestUser();
    for (let i = 0; i < 10; i += 1) {
      const res = await client(app.url, a.apiKey).post('/api/webhook/add', {
        url: `${hole.origin}/a/${i}`,
        events: ['link.created'],
      });
      expect(res.status, res.text).to.equal(200);
    }
    for (let i = 0; i < 3; i += 1)
      await createLink(app, a.apiKey, { url: `https://a.example/${i}` });
    // A's first deliveries have timed out and come back as retries by now.
    await eventually(async () => hole.accepted() >= 8, "A's retries under way", 20_000);

    const b = await createTestUser();
    const added = await client(app.url, b.apiKey).post('/api/webhook/add', {
      url: `${receiver.url}/b/0`,
      events: ['link.created'],
    });
    expect(added.status, added.text).to.equal(200);
    await createLink(app, b.apiKey, { url: 'https://b.example/one' });
    const acceptedAtB = hole.accepted();
    let acceptedThen = 0;
    await eventually(
      async () => {
        acceptedThen = hole.accepted();
        return receiver.arrivals.length === 1;
      },
      "B's delivery arrives",
      20_000,
    );
    // Ahead of B's (rank 1): the slots' running deliveries, whose time-out frees them, and A's
    // one delivery of rank 1. Retries of A's deliveries of rank 2 and up wait behind it.
    expect(acceptedThen - acceptedAtB).to.be.at.most(concurrency + 1);
  });
});

/** Issue 29, M7: the same for renders, each waiting on a slow logo host. */
describe('fair share: two users flooding QR renders and a third with one (issue 29, M7)', function () {
  this.timeout(90_000);
  const concurrency = 2;
  let app: TestApp;
  let worker: QrRenderWorker;
  let logos: LogoServer;
  const order: string[] = [];

  before(async () => {
    app = await startTestApp({
      LOGO_ALLOW_PRIVATE: '1',
      REDIS_PREFIX: `${uniqueName('fairqrflood')}:`,
    });
    logos = await startLogoServer();
    const png = await solidLogo({ r: 200, g: 30, b: 30 });
    for (const user of ['a', 'b', 'c'])
      for (let i = 0; i < 8; i += 1)
        logos.route(`/${user}-${i}.png`, (req, res) => {
          order.push(user);
          setTimeout(() => servePng(png)(req, res), 200);
        });
    worker = startQrWorker(app, { concurrency });
  });
  after(async () => {
    await worker.close();
    await logos.close();
    await app.close();
  });

  it("renders A's and B's eight codes in turns and C's one within a turn, none put back", async () => {
    const add = async (apiKey: string, user: string, i: number) => {
      const res = await client(app.url, apiKey).post<{ id: number }>('/api/qr/add', {
        type: 'text',
        data: `${user} ${i}`,
        logo: `${logos.origin}/${user}-${i}.png`,
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.id;
    };
    const [a, b, c] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    for (let i = 0; i < 8; i += 1) await add(a.apiKey, 'a', i);
    for (let i = 0; i < 8; i += 1) await add(b.apiKey, 'b', i);
    await eventually(async () => order.includes('b'), "B's first logo is asked for", 30_000);
    const cId = await add(c.apiKey, 'c', 0);
    const queuedC = order.length;
    expect((await waitForRender(app, c.apiKey, cId, 30_000)).status).to.equal('ready');
    await eventually(async () => order.length === 17, 'all 17 logos asked for', 60_000);

    // C's (rank 1): behind at most one of A's and one of B's of rank 1 and what the slots had
    // taken. A's flood was queued first, yet B's took turns with it.
    expect(order.indexOf('c')).to.be.within(queuedC, queuedC + 2 + concurrency);
    const firstB = order.indexOf('b');
    expect(firstB).to.be.below(8);
    const shared = order.slice(firstB, order.lastIndexOf('a') + 1).filter((u) => u !== 'c');
    expect(longestRun(shared, 'a')).to.be.at.most(concurrency + 2);
    const delayed = await delayedJobIds(app.deps.redis, bullPrefix(app.deps.keys), QR_RENDER_QUEUE);
    expect([...delayed]).to.deep.equal([]);
    const fair = qrFairShare(app.deps.redis, app.deps.keys);
    await eventually(
      async () =>
        (await Promise.all([a, b, c].map((u) => fair.outstanding(u.user.id)))).every(
          (n) => n === 0,
        ),
      'no outstanding render counted',
      10_000,
    );
  });
});
