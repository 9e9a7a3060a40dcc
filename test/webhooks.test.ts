import { visitPartitionOf } from '../src/visits/visit-stream';
import { UnrecoverableError, type Job } from 'bullmq';
import { expect } from 'chai';
import { Webhook } from '../src/webhooks/webhook.model';
import { clicksWebhookHook } from '../src/webhooks/webhook-clicks';
import { encryptSecret } from '../src/webhooks/webhook-secret';
import { hasSubscribers, webhookSubscribersFor } from '../src/webhooks/webhook-subscribers';
import type { WebhookJob } from '../src/webhooks/webhooks.jobs';
import { createWebhookDeliveryProcessor } from '../workers/webhooks/webhook-delivery.processor';
import { rejection } from './support/rejection';
import { standaloneRedis } from '../src/shared/infra/redis-connections';
import { VisitDrainer } from '../src/visits/visit-drainer';
import { startQrRenderWorker } from '../workers/qr-render/qr-render.worker';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../workers/webhooks/webhook-delivery.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, type ListBody } from './support/http';
import { createLink, eventually, visit } from './support/links';
import { CHROME, GOOGLEBOT } from './support/stats';
import { createTestUser } from './support/users';
import { startReceiver, verifySignature, type Receiver } from './support/webhooks';

interface Delivery {
  id: string;
  event: string;
  attempt: number;
  status: number | null;
  ok: boolean;
  error: string | null;
  duration: number;
  date: string;
}
interface Listed {
  id: number;
  url: string;
  events: string[];
  status: string;
  disabledReason: string | null;
}

describe('webhooks', () => {
  let app: TestApp;
  let worker: WebhookWorker;
  let receiver: Receiver;

  before(async () => {
    // Loopback receivers are private addresses: allowed here, as WEBHOOK_ALLOW_PRIVATE is for.
    app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_DELAY_MS: '50' });
    worker = startWebhookWorker({
      config: app.config,
      logger: app.deps.logger,
      keys: app.deps.keys,
    });
  });
  after(async () => {
    await worker.close();
    await app.close();
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  async function subscriber(events: string[]) {
    const { user, apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const res = await api.post<{ error: number; id: number; secret: string }>('/api/webhook/add', {
      url: receiver.url,
      events,
    });
    expect(res.status, res.text).to.equal(200);
    return { user, apiKey, api, hook: res.body };
  }

  const deliveriesOf = async (api: ReturnType<typeof client>, id: number) =>
    (await api.get<{ data: { deliveries: Delivery[] } }>(`/api/webhook/${id}/deliveries`)).body.data
      .deliveries;

  it('delivers link.created signed with the secret, and retries after the receiver answers 500', async () => {
    const { apiKey, api, hook } = await subscriber(['link.created']);
    expect(hook.error).to.equal(0);
    expect(hook.secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.answers.push(500);

    const link = await createLink(app, apiKey, { url: 'https://example.com/hooked' });
    await eventually(async () => receiver.received.length >= 2, 'the retry arrives', 15_000);

    const [first, retry] = receiver.received;
    for (const r of [first, retry]) {
      expect(r?.headers['content-type']).to.equal('application/json');
      expect(r?.headers['linkqr-event']).to.equal('link.created');
      const t = verifySignature(
        r?.headers['linkqr-signature'] as string,
        r?.body ?? '',
        hook.secret,
      );
      expect(Math.abs(t - Date.now() / 1000)).to.be.below(300);
      expect(() =>
        verifySignature(r?.headers['linkqr-signature'] as string, `${r?.body} `, hook.secret),
      ).to.throw('signature mismatch');
    }
    expect(retry?.body).to.equal(first?.body);
    const body = JSON.parse(first?.body ?? '') as { event: string; created: string; data: unknown };
    expect(body.event).to.equal('link.created');
    expect(new Date(body.created).toISOString()).to.equal(body.created);
    expect(body.data).to.include({
      id: link.id,
      shorturl: link.shorturl,
      longurl: 'https://example.com/hooked',
    });

    await eventually(
      async () => (await deliveriesOf(api, hook.id)).length === 2,
      'both attempts are recorded',
    );
    const deliveries = await deliveriesOf(api, hook.id);
    expect(deliveries.map((d) => [d.attempt, d.status, d.ok, d.error])).to.deep.equal([
      [2, 200, true, null],
      [1, 500, false, 'HTTP 500'],
    ]);
    for (const d of deliveries) {
      expect(d.event).to.equal('link.created');
      expect(d.duration).to.be.a('number').and.at.least(0);
    }
  });

  it('sends link.updated and link.deleted only to webhooks that asked for them', async () => {
    const { apiKey, api, hook } = await subscriber(['link.updated', 'link.deleted']);
    const link = await createLink(app, apiKey, { url: 'https://example.com/a' });
    await api.put(`/api/url/${link.id}/update`, { url: 'https://example.com/b' });
    await api.delete(`/api/url/${link.id}/delete`);
    await eventually(async () => receiver.received.length >= 2, 'two events arrive', 15_000);
    const events = receiver.received.map(
      (r) => JSON.parse(r.body) as { event: string; data: { id: number; longurl?: string } },
    );
    expect(events.map((e) => e.event).sort()).to.deep.equal(['link.deleted', 'link.updated']);
    expect(events.find((e) => e.event === 'link.updated')?.data).to.include({
      id: link.id,
      longurl: 'https://example.com/b',
    });
    expect(events.find((e) => e.event === 'link.deleted')?.data).to.deep.equal({ id: link.id });
    for (const r of receiver.received)
      verifySignature(r.headers['linkqr-signature'] as string, r.body, hook.secret);
  });

  it('sends one clicks delivery per drained batch with its summaries, never one per click', async () => {
    const { apiKey, api, hook } = await subscriber(['clicks']);
    const one = await createLink(app, apiKey, { url: 'https://example.com/1' });
    const two = await createLink(app, apiKey, { url: 'https://example.com/2' });
    for (const [link, ua] of [
      [one, CHROME],
      [one, CHROME],
      [two, CHROME],
      [one, GOOGLEBOT],
    ] as const)
      await visit(app, `/${link.alias}`, { headers: { 'user-agent': ua } });
    await app.deps.visits.flush();

    const redis = standaloneRedis(app.config.redisUrl, 'blocking');
    try {
      const drainer = new VisitDrainer({
        redis,
        keys: app.deps.keys,
        logger: app.deps.logger,
        onApplied: clicksWebhookHook(app.deps.webhooks!, app.deps.logger),
        partitions: app.config.visitStreamPartitions,
      });
      await drainer.drainAvailable();
    } finally {
      redis.disconnect();
    }
    // A batch is drained per partition of the click stream: one delivery for each.
    const batches = new Set(
      [one, two].map((l) => visitPartitionOf('link', l.id, app.config.visitStreamPartitions)),
    ).size;
    await eventually(
      async () => (await deliveriesOf(api, hook.id)).length === batches,
      'the batch is delivered',
      15_000,
    );
    expect(receiver.received).to.have.length(batches);
    const bodies = receiver.received.map(
      (r) =>
        JSON.parse(r.body) as {
          event: string;
          data: { clicks: Array<{ type: string; id: number; clicks: number }> };
        },
    );
    expect(bodies.map((b) => b.event)).to.deep.equal(bodies.map(() => 'clicks'));
    const byId = Object.fromEntries(
      bodies.flatMap((b) => b.data.clicks).map((c) => [c.id, [c.type, c.clicks]]),
    );
    expect(byId).to.deep.equal({ [one.id]: ['link', 2], [two.id]: ['link', 1] });
  });

  it("a clicks webhook added or changed drops the worker process's cached answer", async () => {
    // A connection of its own: the bus and caches of another process, as in the worker.
    const workerRedis = standaloneRedis(app.config.redisUrl, 'blocking');
    try {
      const subscribers = webhookSubscribersFor({
        redis: workerRedis,
        keys: app.deps.keys,
        logger: app.deps.logger,
      });
      await subscribers.whenLive();
      await hasSubscribers(subscribers, 'clicks');
      expect(subscribers.peek('clicks')).to.not.equal(undefined);

      const { api, hook } = await subscriber(['clicks']);
      await eventually(
        async () => subscribers.peek('clicks') === undefined,
        'the addition reaches the worker',
      );
      expect(await hasSubscribers(subscribers, 'clicks')).to.equal(true);

      const paused = await api.put(`/api/webhook/${hook.id}/update`, { active: false });
      expect(paused.status, paused.text).to.equal(200);
      await eventually(
        async () => subscribers.peek('clicks') === undefined,
        'the change reaches the worker',
      );
    } finally {
      workerRedis.disconnect();
    }
  });

  it('delivers qr.ready once the worker has rendered a code', async () => {
    const { api, hook } = await subscriber(['qr.ready', 'qr.failed']);
    const renderer = startQrRenderWorker({
      config: app.config,
      logger: app.deps.logger,
      keys: app.deps.keys,
      events: app.deps.webhooks,
    });
    try {
      const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'hello' });
      expect(qr.status, qr.text).to.equal(200);
      await eventually(async () => receiver.received.length >= 1, 'qr.ready arrives', 15_000);
      const [got] = receiver.received;
      verifySignature(got?.headers['linkqr-signature'] as string, got?.body ?? '', hook.secret);
      const body = JSON.parse(got?.body ?? '') as { event: string; data: { id: number } };
      expect(body.event).to.equal('qr.ready');
      expect(body.data.id).to.equal(qr.body.id);
    } finally {
      await renderer.close();
    }
  });

  it('disables a webhook that has kept failing for 3 days, and shows why', async () => {
    const { apiKey, api, hook } = await subscriber(['link.created']);
    await Webhook.updateOne(
      { id: hook.id },
      { $set: { failingSince: new Date(Date.now() - 4 * 86_400_000) } },
    );
    receiver.answers.push(503);
    await createLink(app, apiKey, { url: 'https://example.com/' });

    await eventually(
      async () => {
        const list = await api.get<ListBody<'webhooks', Listed>>('/api/webhooks');
        return list.body.data.webhooks[0]?.status === 'disabled';
      },
      'the webhook is disabled',
      15_000,
    );
    const list = await api.get<ListBody<'webhooks', Listed>>('/api/webhooks');
    expect(list.body.data.webhooks[0]?.disabledReason).to.match(
      /^deliveries failed since .* without a success; last: HTTP 503$/,
    );
    // Disabled, so the failed delivery is not retried, and new events are not queued for it.
    await createLink(app, apiKey, { url: 'https://example.com/' });
    expect(await deliveriesOf(api, hook.id)).to.have.length(1);
    expect(receiver.received).to.have.length(1);

    const enabled = await api.put(`/api/webhook/${hook.id}/update`, { active: true });
    expect(enabled.status).to.equal(200);
    const after = await api.get<ListBody<'webhooks', Listed>>('/api/webhooks');
    expect(after.body.data.webhooks[0]).to.include({ status: 'active', disabledReason: null });
  });
});

describe('webhook management', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('refuses a URL that points to a private or local address', async () => {
    const receiver = await startReceiver();
    try {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      for (const url of [
        receiver.url,
        'http://[::1]/hooks',
        'http://169.254.169.254/latest/meta-data',
        'http://10.1.2.3/hooks',
        'http://[::ffff:192.168.0.1]/hooks',
      ]) {
        const res = await api.post('/api/webhook/add', { url, events: ['clicks'] });
        expect(res.status, url).to.equal(422);
        expect(res.body, url).to.deep.equal({
          error: 1,
          message: 'url points to a private or local network address',
          code: 'validation_failed',
          field: 'url',
        });
      }
      expect(receiver.received).to.have.length(0);
    } finally {
      await receiver.close();
    }
  });

  it('lists, updates and deletes webhooks without ever showing the secret again', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const open = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
    try {
      const openApi = client(open.url, apiKey);
      const added = await openApi.post<{ id: number; secret: string }>('/api/webhook/add', {
        url: 'http://127.0.0.1:9/hooks',
        events: ['link.created', 'qr.ready'],
      });
      expect(added.status, added.text).to.equal(200);
      expect(Object.keys(added.body).sort()).to.deep.equal(['error', 'id', 'secret']);

      const stored = await Webhook.findOne({ id: added.body.id }).lean();
      expect(JSON.stringify(stored)).not.to.contain(added.body.secret.slice(6));

      const list = await api.get<ListBody<'webhooks', Listed>>('/api/webhooks');
      expect(list.body.error).to.equal('0');
      expect(list.body.data.result).to.equal(1);
      expect(list.body.data.webhooks[0]).to.deep.include({
        id: added.body.id,
        url: 'http://127.0.0.1:9/hooks',
        events: ['link.created', 'qr.ready'],
        status: 'active',
      });
      expect(list.text).not.to.contain(added.body.secret.slice(6));

      const updated = await api.put(`/api/webhook/${added.body.id}/update`, { events: ['clicks'] });
      expect(updated.body).to.deep.equal({
        error: 0,
        message: 'Webhook has been successfully updated.',
      });
      const refused = await api.put(`/api/webhook/${added.body.id}/update`, {
        url: 'http://127.0.0.1:9/other',
      });
      expect(refused.status).to.equal(422);

      const other = client(app.url, (await createTestUser()).apiKey);
      for (const res of [
        await other.put(`/api/webhook/${added.body.id}/update`, { events: ['clicks'] }),
        await other.delete(`/api/webhook/${added.body.id}/delete`),
        await other.get(`/api/webhook/${added.body.id}/deliveries`),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({
          error: 1,
          message: 'Webhook not found',
          code: 'not_found',
        });
      }
      const deleted = await api.delete(`/api/webhook/${added.body.id}/delete`);
      expect(deleted.body).to.deep.equal({
        error: 0,
        message: 'Webhook has been successfully deleted.',
      });
      expect((await api.delete(`/api/webhook/${added.body.id}/delete`)).status).to.equal(404);
    } finally {
      await open.close();
    }
  });

  it('answers 422 naming the field for bad events or URLs', async () => {
    const api = client(app.url, (await createTestUser()).apiKey);
    const cases: Array<[unknown, string, string]> = [
      [{ events: ['clicks'] }, 'url is required', 'url'],
      [{ url: 'ftp://example.com/', events: ['clicks'] }, 'url must use http or https', 'url'],
      [{ url: 'not a url', events: ['clicks'] }, 'url must be an http(s) URL', 'url'],
      [
        { url: 'http://u:p@93.184.215.14/', events: ['clicks'] },
        'url must not carry credentials',
        'url',
      ],
      [{ url: 'http://93.184.215.14/' }, 'events is required', 'events'],
      [
        { url: 'http://93.184.215.14/', events: [] },
        'events must contain at least 1 items',
        'events',
      ],
      [
        { url: 'http://93.184.215.14/', events: ['link.exploded'] },
        'events[0] must be one of [link.created, link.updated, link.deleted, link.broken, link.recovered, qr.ready, qr.failed, clicks, domain.verified, domain.suspended]',
        'events.0',
      ],
      [
        { url: 'http://93.184.215.14/', events: ['clicks', 'clicks'] },
        'events[1] contains a duplicate value',
        'events.1',
      ],
    ];
    for (const [body, message, field] of cases) {
      const res = await api.post('/api/webhook/add', body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body).to.deep.equal({ error: 1, message, code: 'validation_failed', field });
    }
    const empty = await api.put('/api/webhook/1/update', {});
    expect(empty.status).to.equal(422);
  });

  it('refuses at delivery a host that has come to resolve to a private address, without retrying', async () => {
    const { user, apiKey } = await createTestUser();
    const key = app.config.webhookSecretKey as Buffer;
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    await Webhook.create({
      id,
      userId: user.id,
      url: 'http://hooks.example.test/in',
      events: ['clicks'],
      secret: encryptSecret('whsec_x', key),
      createdAt: new Date(),
    });
    const deliver = createWebhookDeliveryProcessor({
      secretKey: key,
      // DNS now answers with an internal address (rebinding): the delivery must not connect.
      policy: { allowPrivate: false, resolve: async () => [{ address: '10.0.0.5', family: 4 }] },
      logger: app.deps.logger,
    });
    const job = {
      id: 'job-1',
      attemptsMade: 0,
      data: { webhookId: id, event: 'clicks', created: new Date().toISOString(), data: {} },
    } as unknown as Job<WebhookJob>;
    const err = await rejection(deliver(job));
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect(err.message).to.equal('url points to a private or local network address');
    const deliveries = await client(app.url, apiKey).get<{ data: { deliveries: Delivery[] } }>(
      `/api/webhook/${id}/deliveries`,
    );
    expect(deliveries.body.data.deliveries.map((d) => [d.status, d.ok, d.error])).to.deep.equal([
      [null, false, 'url points to a private or local network address'],
    ]);
  });

  it('answers 503 naming the setting when no WEBHOOK_SECRET_KEY is configured', async () => {
    const bare = await startTestApp({ WEBHOOK_SECRET_KEY: undefined });
    try {
      const api = client(bare.url, (await createTestUser()).apiKey);
      const res = await api.post('/api/webhook/add', {
        url: 'http://93.184.215.14/',
        events: ['clicks'],
      });
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal({
        error: 1,
        message: 'Webhooks are not configured: set WEBHOOK_SECRET_KEY',
        code: 'unavailable',
      });
    } finally {
      await bare.close();
    }
  });
});
