import { expect } from 'chai';
import { linkCacheFor } from '../../src/links/link-cache';
import { startQrRenderWorker, type QrRenderWorker } from '../../workers/qr-render/qr-render.worker';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../../workers/webhooks/webhook-delivery.worker';
import { startTestApp, type TestApp } from './app-harness';
import { assignToCampaign, createCampaign } from './campaigns';
import { createDashboardUser, DashboardClient, signedIn } from './dashboard';
import { client } from './http';
import { createLink, eventually, visit } from './links';
import { imagePath, waitForRender } from './qr';
import { CHROME } from './stats';
import { createTestUser, uniqueName } from './users';
import { drainVisits } from './visits';
import { startReceiver } from './webhooks';

/**
 * The service's core flows on the Redis that `redisEnv` names (a cluster, Sentinel): two API
 * processes (two apps, each with its own connections and caches), a QR render worker and a
 * webhook worker, all on that Redis. Run by the scaling tests, one topology per file.
 */
export function describeCoreFlows(redisEnv: () => NodeJS.ProcessEnv): void {
  let one: TestApp;
  let two: TestApp;
  let qrWorker: QrRenderWorker;
  let webhookWorker: WebhookWorker;
  const sessionSecret = 'a-session-secret-shared-by-both-processes';

  before(async () => {
    const env = {
      ...redisEnv(),
      WEBHOOK_ALLOW_PRIVATE: '1',
      PLAN_RATE_LIMITS: JSON.stringify({ test: 100_000, tiny: 3 }),
    };
    one = await startTestApp(env, { sessionSecret });
    two = await startTestApp(env, { sessionSecret });
    await linkCacheFor(one.deps).whenLive();
    await linkCacheFor(two.deps).whenLive();
    const deps = { config: one.config, logger: one.deps.logger, keys: one.deps.keys };
    qrWorker = startQrRenderWorker(deps, { stalledInterval: 1000, lockDuration: 5000 });
    webhookWorker = startWebhookWorker(deps);
  });
  after(async () => {
    // Unbounded: the suite's own `after` has stopped the servers by now (registered first, it runs
    // first), and a worker must close at once with Redis away; on Sentinel it used to hang.
    await qrWorker?.close();
    await webhookWorker?.close();
    await one?.close();
    await two?.close();
  });

  it('creates links, redirects on both processes and counts every click once', async () => {
    const { apiKey } = await createTestUser();
    const links = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => createLink(one, apiKey, { url: `https://example.com/${n}` })),
    );
    for (const [i, link] of links.entries()) {
      for (let n = 0; n <= i; n += 1) {
        const res = await visit(n % 2 ? two : one, `/${link.alias}`, {
          headers: { 'user-agent': CHROME },
        });
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal(`https://example.com/${i + 1}`);
      }
    }
    await drainVisits(one);
    const api = client(two.url, apiKey);
    for (const [i, link] of links.entries()) {
      const res = await api.get<{ data: { clicks: number; uniqueClicks: number } }>(
        `/api/url/${link.id}`,
      );
      expect(res.body.data, link.alias).to.include({ clicks: i + 1, uniqueClicks: 1 });
    }
  });

  it('renders a QR code in the worker and serves its image from either process', async () => {
    const { apiKey } = await createTestUser();
    const qr = await client(one.url, apiKey).post<{ id: number; link: string }>('/api/qr/add', {
      type: 'text',
      data: 'on a cluster',
    });
    expect(qr.status, qr.text).to.equal(200);
    expect((await waitForRender(two, apiKey, qr.body.id)).status).to.equal('ready');
    const image = await visit(two, imagePath(qr.body.link));
    expect(image.status).to.equal(200);
    expect(image.headers.get('content-type')).to.match(/^image\//);
  });

  it('shares one rate limit across both processes', async () => {
    const { apiKey } = await createTestUser({ plan: 'tiny' });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await client(i % 2 ? two.url : one.url, apiKey).get('/api/account');
      statuses.push(res.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    const limited = await client(two.url, apiKey).get('/api/account');
    expect(limited.body).to.deep.include({ error: 1 });
    expect(String(limited.body.message)).to.match(/^Rate limit exceeded/);
  });

  it('invalidates the other process’s cached link within a second of an update', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(one, apiKey, { url: 'https://example.com/before' });
    expect((await visit(two, `/${link.alias}`)).headers.get('location')).to.equal(
      'https://example.com/before',
    );
    const res = await client(one.url, apiKey).put(`/api/url/${link.id}/update`, {
      url: 'https://example.com/after',
    });
    expect(res.status, res.text).to.equal(200);
    await eventually(
      async () =>
        (await visit(two, `/${link.alias}`)).headers.get('location') ===
        'https://example.com/after',
      'the other process serves the update',
      1000,
    );
  });

  it('shares one rotator turn order between both processes', async () => {
    const { apiKey } = await createTestUser();
    const slug = uniqueName('rot');
    const campaign = await createCampaign(one, apiKey, { slug });
    const urls = ['https://example.com/r1', 'https://example.com/r2', 'https://example.com/r3'];
    for (const url of urls) {
      const link = await createLink(one, apiKey, { url });
      await assignToCampaign(one, apiKey, campaign.id, link.id);
    }
    const seen: Array<string | null> = [];
    for (const app of [one, two, one, two, one, two]) {
      const res = await visit(app, `/r/${slug}`);
      expect(res.status).to.equal(302);
      seen.push(res.headers.get('location'));
    }
    expect(seen).to.deep.equal([...urls, ...urls]);
  });

  it('keeps a dashboard session signed in on either process', async () => {
    const user = await createDashboardUser();
    const dash = await signedIn(one.url, user);
    const other = new DashboardClient(two.url);
    other.cookie = dash.cookie;
    const page = await other.send('/app/account');
    expect(page.status).to.equal(200);
    expect(page.text).to.include(user.user.email);
  });

  it('delivers a webhook of a link event once', async () => {
    const receiver = await startReceiver();
    try {
      const { apiKey } = await createTestUser();
      const api = client(one.url, apiKey);
      const hook = await api.post<{ id: number }>('/api/webhook/add', {
        url: receiver.url,
        events: ['link.created'],
      });
      expect(hook.status, hook.text).to.equal(200);
      await createLink(two, apiKey, { url: 'https://example.com/hooked' });
      await eventually(async () => receiver.received.length === 1, 'the delivery', 10_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).to.have.length(1);
      expect(JSON.parse(receiver.received[0]!.body)).to.deep.include({ event: 'link.created' });
    } finally {
      await receiver.close();
    }
  });
}
