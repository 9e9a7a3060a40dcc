import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../workers/webhooks/webhook-delivery.worker';
import { startLinkChecks, type LinkChecks } from '../workers/link-checks/link-check.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, eventually, visit } from './support/links';
import { createTestUser } from './support/users';
import { startReceiver, type Receiver } from './support/webhooks';

/** A destination on 127.0.0.1 whose answer the test sets, recording every request. */
interface Target {
  url: string;
  /** Status for HEAD and GET; `head` overrides it for HEAD alone. */
  status: number;
  head?: number;
  requests: string[];
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const target = { status: 200, requests: [] as string[] } as Target;
  const server = http.createServer((req, res) => {
    target.requests.push(req.method ?? '');
    res.statusCode = req.method === 'HEAD' ? (target.head ?? target.status) : target.status;
    res.end(req.method === 'HEAD' ? undefined : 'page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/landing`;
  target.close = () => new Promise((resolve) => server.close(() => resolve()));
  return target;
}

interface Health {
  status: string;
  checked: string | null;
  since: string | null;
  lastError: string | null;
}

const HOUR = 3600_000;

describe('link monitoring (issue 24, item 5)', () => {
  let app: TestApp;
  let worker: WebhookWorker;
  let receiver: Receiver;
  let target: Target;
  let checks: LinkChecks;

  before(async () => {
    // Loopback targets and receivers are private addresses: allowed here, as the variables say.
    app = await startTestApp({
      LINK_CHECK_ALLOW_PRIVATE: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_DELAY_MS: '50',
    });
    worker = startWebhookWorker({
      config: app.config,
      logger: app.deps.logger,
      keys: app.deps.keys,
    });
    const { config, logger, redis, keys, webhooks } = app.deps;
    checks = startLinkChecks(
      { config, logger, redis, keys, events: webhooks! },
      { timer: false, context: { hostGapMs: 0 } },
    );
  });
  after(async () => {
    await worker.close();
    await app.close();
  });
  beforeEach(async () => {
    [receiver, target] = await Promise.all([startReceiver(), startTarget()]);
  });
  afterEach(() => Promise.all([receiver.close(), target.close()]));

  async function monitoredLink(body: Record<string, unknown> = {}) {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const hook = await api.post('/api/webhook/add', {
      url: receiver.url,
      events: ['link.broken', 'link.recovered'],
    });
    expect(hook.status, hook.text).to.equal(200);
    const link = await createLink(app, apiKey, { url: target.url, monitor: true, ...body });
    const health = async () =>
      (await api.get<{ details: { health: Health } }>(`/api/url/${link.id}`)).body.details.health;
    const location = async () =>
      (await visit(app, `/${link.alias}`)).headers.get('location') ?? null;
    return { api, link, health, location };
  }

  const events = () =>
    receiver.received.map(
      (r) => JSON.parse(r.body) as { event: string; data: { id: number; health: Health } },
    );

  it('moves a link to its fallback after two failed checks and back at the first good one, with the webhook events', async () => {
    const { link, health, location } = await monitoredLink({
      fallback: 'https://example.com/fallback',
    });
    expect(await health()).to.deep.equal({
      status: 'unknown',
      checked: null,
      since: null,
      lastError: null,
    });
    const t0 = Date.now();
    await checks.run(new Date(t0));
    expect((await health()).status).to.equal('healthy');
    expect(target.requests).to.deep.equal(['HEAD']);

    // Within the interval nothing is requested again.
    await checks.run(new Date(t0 + HOUR / 2));
    expect(target.requests).to.have.length(1);

    target.status = 500;
    await checks.run(new Date(t0 + HOUR));
    expect(await health()).to.include({ status: 'healthy', lastError: 'HTTP 500' });
    expect(await location()).to.equal(target.url);

    await checks.run(new Date(t0 + 2 * HOUR));
    const broken = await health();
    expect(broken).to.include({ status: 'broken', lastError: 'HTTP 500' });
    expect(broken.since).to.equal(broken.checked);
    expect(await location()).to.equal('https://example.com/fallback');
    await eventually(async () => receiver.received.length === 1, 'link.broken arrives', 15_000);

    target.status = 200;
    await checks.run(new Date(t0 + 3 * HOUR));
    expect(await health()).to.include({ status: 'healthy', lastError: 'HTTP 500' });
    expect(await location()).to.equal(target.url);
    await eventually(async () => receiver.received.length === 2, 'link.recovered arrives', 15_000);
    expect(events().map((e) => [e.event, e.data.id, e.data.health.status])).to.deep.equal([
      ['link.broken', link.id, 'broken'],
      ['link.recovered', link.id, 'healthy'],
    ]);
    // HEAD answered every time: GET was never needed.
    expect(target.requests).to.deep.equal(['HEAD', 'HEAD', 'HEAD', 'HEAD']);
  });

  it('keeps visitors on the destination while it is broken when the link has no fallback', async () => {
    const { health, location } = await monitoredLink();
    target.status = 404;
    const t0 = Date.now();
    await checks.run(new Date(t0));
    await checks.run(new Date(t0 + HOUR));
    expect(await health()).to.include({ status: 'broken', lastError: 'HTTP 404' });
    expect(await location()).to.equal(target.url);
  });

  it('starts over when the destination changes: unknown, and visitors go to the new one', async () => {
    const { api, link, health, location } = await monitoredLink({
      fallback: 'https://example.com/fallback',
    });
    target.status = 503;
    const t0 = Date.now();
    await checks.run(new Date(t0));
    await checks.run(new Date(t0 + HOUR));
    expect(await location()).to.equal('https://example.com/fallback');
    const moved = await api.put(`/api/url/${link.id}/update`, { url: 'https://example.com/new' });
    expect(moved.status, moved.text).to.equal(200);
    expect(await health()).to.deep.equal({
      status: 'unknown',
      checked: null,
      since: null,
      lastError: null,
    });
    expect(await location()).to.equal('https://example.com/new');
  });

  it('asks with GET when HEAD is refused, and counts what GET answers', async () => {
    const { health } = await monitoredLink();
    target.head = 405;
    await checks.run(new Date());
    expect(target.requests).to.deep.equal(['HEAD', 'GET']);
    expect((await health()).status).to.equal('healthy');
  });

  it('checks a destination once for all its links, and a link saved later takes that check', async () => {
    const first = await monitoredLink();
    const other = await createTestUser();
    const api = client(app.url, other.apiKey);
    const healthOf = async (id: number) =>
      (await api.get<{ details: { health: Health } }>(`/api/url/${id}`)).body.details.health;
    const second = await createLink(app, other.apiKey, { url: target.url, monitor: true });
    const t0 = Date.now();
    await checks.run(new Date(t0));
    expect(target.requests).to.deep.equal(['HEAD']);
    expect((await first.health()).status).to.equal('healthy');
    expect((await healthOf(second.id)).status).to.equal('healthy');

    const later = await createLink(app, other.apiKey, { url: target.url, monitor: true });
    await checks.run(new Date(t0 + 60_000));
    expect(target.requests).to.deep.equal(['HEAD']);
    expect(await healthOf(later.id)).to.deep.equal(await first.health());
  });

  it('never requests a private address unless LINK_CHECK_ALLOW_PRIVATE allows it', async () => {
    const { health } = await monitoredLink({ fallback: 'https://example.com/fallback' });
    const { config, logger, redis, keys, webhooks } = app.deps;
    const strict = startLinkChecks(
      {
        config: { ...config, linkCheckAllowPrivate: false },
        logger,
        redis,
        keys,
        events: webhooks!,
      },
      { timer: false },
    );
    const t0 = Date.now();
    await strict.run(new Date(t0));
    await strict.run(new Date(t0 + HOUR));
    expect(target.requests).to.deep.equal([]);
    expect(await health()).to.include({
      status: 'unknown',
      lastError: 'destination is a private or local network address: not checked',
    });
  });

  it('answers 422 naming the field for a fallback that is not an http(s) URL', async () => {
    const { apiKey } = await createTestUser();
    const res = await client(app.url, apiKey).post('/api/url/add', {
      url: 'https://example.com/',
      monitor: true,
      fallback: 'ftp://example.com/file',
    });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.equal({
      error: 1,
      code: 'validation_failed',
      field: 'fallback',
      message: 'fallback must be an http or https URL',
    });
  });
});
