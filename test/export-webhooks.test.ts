import { expect } from 'chai';
import { Webhook, WEBHOOK_EVENTS } from '../src/webhooks/webhook.model';
import {
  startWebhookWorker,
  type WebhookWorker,
} from '../workers/webhooks/webhook-delivery.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import {
  finishedImport,
  startTestImportWorker,
  uploadImport,
  type ImportReport,
} from './support/imports';
import { createLink, eventually } from './support/links';
import { createTestUser } from './support/users';
import { startReceiver, verifySignature, type Receiver } from './support/webhooks';

interface ImportedWebhook {
  item: string;
  id: number;
  url: string;
  secret: string | null;
}
type Report = ImportReport & { webhooks: ImportedWebhook[] };

async function exportOf(app: TestApp, apiKey: string): Promise<string> {
  const res = await fetch(`${app.url}/api/export`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(res.status).to.equal(200);
  return res.text();
}

describe('portable export: webhooks get new secrets where imported', function () {
  this.timeout(60_000);
  let app: TestApp;
  let importer: { close(): Promise<void> };
  let deliverer: WebhookWorker;
  let receiver: Receiver;
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    importer = startTestImportWorker(app);
    deliverer = startWebhookWorker({
      config: app.config,
      logger: app.deps.logger,
      keys: app.deps.keys,
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await deliverer.close();
    await importer.close();
    await app.close();
  });

  it('creates each webhook with a new secret, shows it once in the report, and signs deliveries with it', async () => {
    const owner = await createTestUser();
    const api = client(app.url, owner.apiKey);
    const live = await api.post<{ id: number; secret: string }>('/api/webhook/add', {
      url: receiver.url,
      events: ['link.created'],
    });
    expect(live.status, live.text).to.equal(200);
    const paused = await api.post<{ id: number; secret: string }>('/api/webhook/add', {
      url: `${receiver.url}?paused`,
      events: ['qr.ready'],
    });
    expect(paused.status, paused.text).to.equal(200);
    const off = await api.put(`/api/webhook/${paused.body.id}/update`, { active: false });
    expect(off.status, off.text).to.equal(200);
    const text = await exportOf(app, owner.apiKey);
    expect(text).to.not.include(live.body.secret).and.not.include(paused.body.secret);

    const newcomer = await createTestUser();
    const started = await uploadImport(app, newcomer.apiKey, text, { source: 'linkqr' });
    expect(started.status, started.text).to.equal(200);
    const report = (await finishedImport(app, newcomer.apiKey, started.body.id)) as Report;
    expect(report).to.deep.include({ status: 'done', total: 2, imported: 2, skipped: 0 });
    const made = await Webhook.find({ userId: newcomer.user.id }).sort({ id: 1 }).lean();
    expect(made.map((w) => [w.url, w.events, w.disabledAt !== null])).to.deep.equal([
      [receiver.url, ['link.created'], false],
      [`${receiver.url}?paused`, ['qr.ready'], true],
    ]);
    const [hook, pausedHook] = made;
    const shown = report.webhooks;
    expect(shown.map((w) => [w.item, w.id, w.url])).to.deep.equal([
      [`webhook ${live.body.id}`, hook?.id, receiver.url],
      [`webhook ${paused.body.id}`, pausedHook?.id, `${receiver.url}?paused`],
    ]);
    const secret = shown[0]?.secret ?? '';
    expect(secret)
      .to.match(/^whsec_/)
      .and.not.equal(live.body.secret);
    expect(shown[1]?.secret).to.match(/^whsec_/);
    // Encrypted at rest, like any webhook's secret.
    expect(hook?.secret).to.not.include(secret);
    expect(report.errors).to.deep.equal(
      made.map((w, i) => ({
        item: shown[i]?.item,
        message: `imported as webhook ${w.id} with a new signing secret, shown once in this import's report (if it was missed: delete the webhook and add it again)`,
      })),
    );

    // Shown once: later reads, and the list, carry no secret.
    const again = await client(app.url, newcomer.apiKey).get<{ data: Report }>(
      `/api/import/${started.body.id}`,
    );
    expect(again.body.data.webhooks.map((w) => w.secret)).to.deep.equal([null, null]);
    const listed = await client(app.url, newcomer.apiKey).get<{ data: { imports: Report[] } }>(
      '/api/imports',
    );
    expect(listed.body.data.imports[0]?.webhooks.map((w) => w.secret)).to.deep.equal([null, null]);

    // Deliveries work at once, signed with the new secret (not the source's).
    await createLink(app, newcomer.apiKey, { url: 'https://example.com/after-import' });
    await eventually(async () => receiver.received.length >= 1, 'the delivery arrives', 15_000);
    const delivery = receiver.received[0];
    const signature = delivery?.headers['linkqr-signature'] as string;
    verifySignature(signature, delivery?.body ?? '', secret);
    expect(() => verifySignature(signature, delivery?.body ?? '', live.body.secret)).to.throw(
      'signature mismatch',
    );
    expect(delivery?.headers['linkqr-event']).to.equal('link.created');

    // A re-run brings nothing new.
    const rerun = await uploadImport(app, newcomer.apiKey, text, { source: 'linkqr' });
    const second = (await finishedImport(app, newcomer.apiKey, rerun.body.id)) as Report;
    expect(second).to.deep.include({ imported: 0, skipped: 2, webhooks: [] });
    expect(await Webhook.countDocuments({ userId: newcomer.user.id })).to.equal(2);
  });

  it('fails a webhook whose events or address this server refuses, saying why', async () => {
    const { apiKey, user } = await createTestUser();
    const header = { format: 'linkqr-export', version: 1, source: 'https://old.example' };
    const hooks = [
      { type: 'webhook', data: { id: 1, url: receiver.url, events: ['link.exploded'] } },
      { type: 'webhook', data: { id: 2, url: 'ftp://example.com/in', events: ['clicks'] } },
    ];
    const text = [header, ...hooks].map((l) => JSON.stringify(l)).join('\n');
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    const report = (await finishedImport(app, apiKey, started.body.id)) as Report;
    expect(report).to.deep.include({ status: 'done', imported: 0, failed: 2, webhooks: [] });
    expect(report.errors).to.deep.equal([
      {
        item: 'webhook 1',
        message: `events[0] must be one of [${WEBHOOK_EVENTS.join(', ')}]`,
      },
      { item: 'webhook 2', message: 'url must use http or https' },
    ]);
    expect(await Webhook.countDocuments({ userId: user.id })).to.equal(0);
  });
});
