import { expect } from 'chai';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../workers/webhooks/webhook-delivery.worker';
import { Webhook } from '../src/webhooks/webhook.model';
import { startQrRenderWorker, type QrRenderWorker } from '../workers/qr-render/qr-render.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { startBlackHole } from './support/black-hole';
import { waitForRender } from './support/qr';
import { client } from './support/http';
import { createLink, eventually } from './support/links';
import { createTestUser, uniqueName } from './support/users';
import { startReceiver, type Receiver } from './support/webhooks';

/**
 * Issue 29, M7: one user's flood of deliveries to a black hole must not starve another user's
 * delivery. A user alone may use every slot (the cap only makes room for someone waiting), so B
 * waits at most for one of A's running deliveries to time out. Asserted on counts, not time: B's
 * delivery arrives before A's queued deliveries have had their turn.
 */
describe('worker fairness: webhook deliveries per user (issue 29, M7)', function () {
  this.timeout(30_000);
  const concurrency = 4;
  let app: TestApp;
  let worker: WebhookWorker;
  let hole: Awaited<ReturnType<typeof startBlackHole>>;
  let receiver: Receiver;

  before(async () => {
    app = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: '1',
      REDIS_PREFIX: `${uniqueName('fair')}:`,
    });
    hole = await startBlackHole();
    receiver = await startReceiver();
    // Deliveries to the black hole hang until their time-out frees the slot.
    worker = startWebhookWorker(
      { config: app.config, logger: app.deps.logger, keys: app.deps.keys },
      { concurrency, timeoutMs: 2_000 },
    );
  });
  after(async () => {
    await hole.close();
    await worker.close();
    await receiver.close();
    await app.close();
  });

  it("delivers B's event before A's thirty queued deliveries to a black hole have had their turn", async () => {
    const a = await createTestUser();
    const aApi = client(app.url, a.apiKey);
    for (let i = 0; i < 10; i += 1) {
      const res = await aApi.post('/api/webhook/add', {
        url: `${hole.url}-${i}`,
        events: ['link.created'],
      });
      expect(res.status, res.text).to.equal(200);
    }
    // 30 of A's deliveries queued before B's one.
    for (let i = 0; i < 3; i += 1)
      await createLink(app, a.apiKey, { url: `https://a.example/${i}` });
    await eventually(async () => hole.accepted() >= 1, "A's first delivery is under way", 10_000);

    const b = await createTestUser();
    const bApi = client(app.url, b.apiKey);
    expect(
      (await bApi.post('/api/webhook/add', { url: receiver.url, events: ['link.created'] })).status,
    ).to.equal(200);
    await createLink(app, b.apiKey, { url: 'https://b.example/one' });
    await eventually(async () => receiver.received.length === 1, "B's delivery arrives", 20_000);

    expect(receiver.received[0]?.headers['linkqr-event']).to.equal('link.created');
    // A had every slot while alone, and one wave of time-outs later B's came first: a few of A's
    // thirty had started, not all of them.
    expect(hole.accepted()).to.be.within(1, 3 * concurrency);
    expect(await Webhook.countDocuments({ userId: a.user.id, disabledAt: null })).to.equal(10);
  });
});

describe('webhooks: repeated time-outs disable a webhook sooner (issue 29, M7)', function () {
  this.timeout(30_000);
  let app: TestApp;
  let worker: WebhookWorker;
  let hole: Awaited<ReturnType<typeof startBlackHole>>;

  before(async () => {
    app = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_DELAY_MS: '20',
      WEBHOOK_ATTEMPTS: '10',
      REDIS_PREFIX: `${uniqueName('tmo')}:`,
    });
    hole = await startBlackHole();
    worker = startWebhookWorker(
      { config: app.config, logger: app.deps.logger, keys: app.deps.keys },
      { concurrency: 2, timeoutMs: 100 },
    );
  });
  after(async () => {
    await hole.close();
    await worker.close();
    await app.close();
  });

  it('disables the webhook after 5 time-outs in a row, not after 3 days, and stops retrying', async () => {
    const { user, apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const added = await api.post<{ id: number }>('/api/webhook/add', {
      url: hole.url,
      events: ['link.created'],
    });
    expect(added.status).to.equal(200);
    await createLink(app, apiKey, { url: 'https://example.com/timeouts' });
    await eventually(
      async () => !!(await Webhook.findOne({ id: added.body.id }).lean())?.disabledAt,
      'the webhook is disabled',
      20_000,
    );
    const hook = await Webhook.findOne({ id: added.body.id, userId: user.id }).lean();
    expect(hook?.disabledReason).to.equal(
      '5 deliveries in a row got no answer in time; last: no answer within 0.1 s (timed out)',
    );
    const listed = await api.get<{ data: { webhooks: Array<{ id: number; status: string }> } }>(
      '/api/webhooks',
    );
    expect(listed.body.data.webhooks.find((w) => w.id === added.body.id)?.status).to.equal(
      'disabled',
    );
    const deliveries = await api.get<{ data: { deliveries: Array<{ error: string }> } }>(
      `/api/webhook/${added.body.id}/deliveries`,
    );
    expect(deliveries.body.data.deliveries).to.have.length(5);
    expect(hole.accepted()).to.equal(5);
  });
});

describe('worker fairness: QR renders per user (issue 29, M7)', function () {
  this.timeout(40_000);
  const concurrency = 2;
  let app: TestApp;
  let worker: QrRenderWorker;
  let hole: Awaited<ReturnType<typeof startBlackHole>>;
  /** Renders that completed (only B's can: A's logos never arrive), as the worker timed them. */
  const renders: Array<{ startedAt: number; endedAt: number }> = [];

  before(async () => {
    app = await startTestApp({
      LOGO_ALLOW_PRIVATE: '1',
      REDIS_PREFIX: `${uniqueName('fairqr')}:`,
    });
    hole = await startBlackHole();
    // Downloads from the black hole hang until their time-out frees the slot.
    worker = startQrRenderWorker(
      {
        config: app.config,
        logger: app.deps.logger,
        keys: app.deps.keys,
        observer: {
          completed: (_outcome, seconds) => {
            const now = Date.now();
            renders.push({ startedAt: now - seconds * 1000, endedAt: now });
          },
          failed: () => undefined,
        },
      },
      {
        stalledInterval: 1000,
        lockDuration: 5000,
        concurrency,
        logoTimeoutMs: 2_000,
        // The sweep on start queues every pending code older than its age in the database, and
        // earlier files in this mocha process leave some: only this test's codes may render.
        sweepAgeMs: 24 * 3600_000,
      },
    );
  });
  after(async () => {
    await hole.close();
    await worker.close();
    await app.close();
  });

  it("renders B's plain code while A's codes with a logo host that never answers are stuck", async () => {
    const a = await createTestUser();
    const aApi = client(app.url, a.apiKey);
    for (let i = 0; i < 6; i += 1) {
      const res = await aApi.post('/api/qr/add', {
        type: 'text',
        data: `slow ${i}`,
        logo: hole.url.replace('/hook', `/logo-${i}.png`),
      });
      expect(res.status, res.text).to.equal(200);
    }
    await eventually(async () => hole.accepted() >= 1, "A's first logo download starts", 10_000);

    const b = await createTestUser();
    const queuedAt = Date.now();
    const created = await client(app.url, b.apiKey).post<{ id: number }>('/api/qr/add', {
      type: 'text',
      data: 'plain',
    });
    expect(created.status).to.equal(200);
    const details = await waitForRender(app, b.apiKey, created.body.id, 30_000);
    expect(details.status).to.equal('ready');
    expect(renders).to.have.length(1);
    // B's job takes the first slot A frees: none of A's codes queued behind it starts a download
    // between B's create and B's render (one, if a slot was taken as B's job was being queued).
    // Counted by order, not time, so a slow machine cannot make it pass or fail.
    const startedB = renders[0]!.startedAt;
    const aStartedMeanwhile = hole.acceptedAt().filter((t) => t > queuedAt && t < startedB);
    expect(aStartedMeanwhile.length).to.be.at.most(1);
    expect(hole.accepted()).to.be.at.least(1);
  });
});
