import { expect } from 'chai';
import { formatsOf } from './support/qr';
import { client } from './support/http';
import { aliasOf, decodeImage, pixelAt, servePng, waitForRender } from './support/qr';
import { useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';
import { Queue, type Job } from 'bullmq';
import { QrCode, type QrCodeRecord } from '../src/qr-codes/qr-code.model';
import { QrImage } from '../src/qr-codes/qr-image.model';
import {
  bullPrefix,
  QR_RENDER_QUEUE,
  qrRenderJobFor,
  type QrRenderJob,
} from '../src/qr-codes/qr-codes.jobs';
import { etagOf, saveImages } from '../src/qr-codes/qr-images';
import { qrLookupCacheFor } from '../src/qr-codes/qr-lookup-cache';
import type { WebhookEvents } from '../src/webhooks/webhooks.jobs';
import { createQrRenderProcessor } from '../workers/qr-render/qr-render.processor';
import { createRenderPool, type RenderPool } from '../workers/qr-render/render-pool';
import { rejection } from './support/rejection';

describe('QR codes', () => {
  const env = useQrEnvironment();

  it('re-renders on update, replacing the image and removing the old one', async () => {
    const user = await createTestUser();
    const api = client(env.app.url, user.apiKey);
    const { id, link } = await env.create(user, { type: 'text', data: 'first' });
    await waitForRender(env.app, user.apiKey, id);
    const before = await env.image(link);
    const res = await api.put(`/api/qr/${id}/update`, {
      data: 'second',
      foreground: 'rgb(0,80,0)',
      name: 'renamed',
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ error: 0, message: 'QR code has been successfully updated.' });
    const details = await waitForRender(env.app, user.apiKey, id);
    expect([details.status, details.name]).to.deep.equal(['ready', 'renamed']);
    const after = await env.image(link);
    expect((await decodeImage(after.bytes)).text).to.equal('second');
    expect(after.res.headers.get('etag')).not.to.equal(before.res.headers.get('etag'));
    const stored = await QrImage.find({ qrId: id }).lean();
    expect(stored.map((i) => [i.renderVersion, i.format]).sort()).to.deep.equal([
      [2, 'png'],
      [2, 'svg'],
    ]);
  });

  describe('idempotent jobs', () => {
    let queue: Queue<QrRenderJob>;
    before(() => {
      queue = new Queue<QrRenderJob>(QR_RENDER_QUEUE, {
        connection: env.app.deps.redis,
        prefix: bullPrefix(env.app.deps.keys),
      });
    });
    after(() => queue.close());

    /** Queues a job and waits until the env.worker has finished with it (completed jobs are removed). */
    async function runJob(job: QrRenderJob) {
      await env.app.deps.qrQueue.enqueue(job);
      const deadline = Date.now() + 10_000;
      while (await queue.getJob(`qr-${job.qrId}-v${job.renderVersion}`)) {
        if (Date.now() > deadline) throw new Error('job still queued');
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it('a late job for an older version changes nothing; a duplicate of the current one neither', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, { type: 'text', data: 'v1' });
      await waitForRender(env.app, user.apiKey, id);
      await client(env.app.url, user.apiKey).put(`/api/qr/${id}/update`, { data: 'v2' });
      await waitForRender(env.app, user.apiKey, id);
      const current = await env.image(link);
      await runJob({ qrId: id, renderVersion: 1 });
      await runJob({ qrId: id, renderVersion: 2 });
      const after = await env.image(link);
      expect(after.res.headers.get('etag')).to.equal(current.res.headers.get('etag'));
      expect((await decodeImage(after.bytes)).text).to.equal('v2');
      const stored = await QrImage.find({ qrId: id }).lean();
      expect(stored.map((i) => i.renderVersion)).to.deep.equal([2, 2]);
    });

    it('the same content renders to the same bytes: an identical update keeps the ETag', async () => {
      const user = await createTestUser();
      const body = { type: 'text', data: 'same', foreground: 'rgb(0,0,90)' };
      const { id, link } = await env.create(user, body);
      await waitForRender(env.app, user.apiKey, id);
      const first = await env.image(link, '.svg');
      const firstPng = await env.image(link);
      await client(env.app.url, user.apiKey).put(`/api/qr/${id}/update`, body);
      await waitForRender(env.app, user.apiKey, id);
      expect((await env.image(link, '.svg')).res.headers.get('etag')).to.equal(
        first.res.headers.get('etag'),
      );
      expect((await env.image(link)).res.headers.get('etag')).to.equal(
        firstPng.res.headers.get('etag'),
      );
    });
  });

  describe('a job carrying its content (run by the processor itself)', () => {
    let pool: RenderPool;
    let events: Array<[number, string, unknown]>;
    let processJob: (job: Job<QrRenderJob>) => Promise<string>;
    before(() => {
      pool = createRenderPool(1);
    });
    after(() => pool.close());
    beforeEach(() => {
      events = [];
      const recorder: WebhookEvents = {
        emit: async (userId, event, data) => void events.push([userId, event, data]),
        subscribed: async () => true,
        close: async () => undefined,
      };
      processJob = createQrRenderProcessor({
        pool,
        logo: { logoDir: env.logoDir, allowPrivate: true },
        logger: env.app.deps.logger,
        lookups: qrLookupCacheFor(env.app.deps),
        events: recorder,
      });
    });

    const attempt = (data: QrRenderJob, attemptsMade = 0) =>
      processJob({ data, opts: { attempts: 5 }, attemptsMade } as Job<QrRenderJob>);

    async function jobOf(id: number): Promise<QrRenderJob> {
      const qr = await QrCode.collection.findOne<QrCodeRecord>({ id });
      if (!qr) throw new Error(`QR ${id} not stored`);
      return qrRenderJobFor(qr);
    }

    /** A new pending version stored behind the API's back, so no queued job races the test's. */
    async function pendingVersion(id: number, payload: string): Promise<void> {
      await QrCode.updateOne(
        { id },
        { $set: { status: 'pending', payload }, $inc: { renderVersion: 1 } },
      );
    }

    const storedVersions = async (id: number) =>
      (await QrImage.find({ qrId: id }).lean()).map((i) => `${i.renderVersion}:${i.format}`).sort();

    it('a duplicate of a version already ready keeps its images and announces nothing', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, { type: 'text', data: 'twice' });
      await waitForRender(env.app, user.apiKey, id);
      const before = await env.image(link);
      const renderedAt = (await QrCode.findOne({ id }).lean())?.renderedAt;
      expect(await attempt(await jobOf(id))).to.equal('already-ready');
      expect(events).to.deep.equal([]);
      expect(await storedVersions(id)).to.deep.equal(['1:png', '1:svg']);
      const after = await env.image(link);
      expect(after.res.status).to.equal(200);
      expect(after.res.headers.get('etag')).to.equal(before.res.headers.get('etag'));
      expect((await QrCode.findOne({ id }).lean())?.renderedAt).to.deep.equal(renderedAt);
    });

    /** Counts the image writes made while `run` runs. */
    async function imageWrites<T>(run: () => Promise<T>): Promise<[T, number]> {
      const collection = QrImage.collection;
      const insertMany = collection.insertMany;
      let writes = 0;
      collection.insertMany = function (this: typeof collection, ...args) {
        writes += 1;
        return insertMany.apply(this, args);
      } as typeof insertMany;
      try {
        return [await run(), writes];
      } finally {
        collection.insertMany = insertMany;
      }
    }

    /** Ready codes of the user, each with a new pending version of its own payload. */
    async function pendingCodes(payloads: string[]): Promise<number[]> {
      const user = await createTestUser();
      const ids: number[] = [];
      for (const [i, payload] of payloads.entries()) {
        const { id } = await env.create(user, { type: 'text', data: `code ${i}` });
        await waitForRender(env.app, user.apiKey, id);
        await pendingVersion(id, payload);
        ids.push(id);
      }
      return ids;
    }

    it('renders ending while the thread still has others in hand are stored in one write', async () => {
      const ids = await pendingCodes(['grouped 1', 'grouped 2', 'grouped 3']);
      const jobs = await Promise.all(ids.map(jobOf));
      const [outcomes, writes] = await imageWrites(() => Promise.all(jobs.map((j) => attempt(j))));
      expect(outcomes).to.deep.equal(['ready', 'ready', 'ready']);
      expect(writes).to.equal(1);
      for (const id of ids) expect(await storedVersions(id)).to.deep.equal(['2:png', '2:svg']);
    });

    it('a render held for another is stored once that other fails', async () => {
      const [held, failing] = await pendingCodes(['held', 'x'.repeat(8000)]);
      const jobs = [await jobOf(held as number), await jobOf(failing as number)];
      const [[outcome, err], writes] = await imageWrites(() =>
        Promise.all([attempt(jobs[0] as QrRenderJob), rejection(attempt(jobs[1] as QrRenderJob))]),
      );
      expect(outcome).to.equal('ready');
      expect(err.message).to.match(/does not fit/);
      expect(writes).to.equal(1);
      expect(await storedVersions(held as number)).to.deep.equal(['2:png', '2:svg']);
    });

    it('a retried job whose first attempt stored the images marks the version ready once', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, { type: 'text', data: 'first' });
      await waitForRender(env.app, user.apiKey, id);
      await pendingVersion(id, 'retried');
      const job = await jobOf(id);
      // What the first attempt wrote before it failed to mark the version ready.
      const earlier = await pool.render({
        payload: 'retried',
        size: 512,
        foreground: { r: 0, g: 0, b: 0 },
        background: { r: 255, g: 255, b: 255 },
      });
      await saveImages(id, 2, earlier);
      expect(await attempt(job, 1)).to.equal('ready');
      expect(events).to.deep.equal([
        [user.user.id, 'qr.ready', { id, alias: aliasOf(link), name: '' }],
      ]);
      expect(await storedVersions(id)).to.deep.equal(['2:png', '2:svg']);
      const served = await env.image(link);
      expect(served.res.headers.get('etag')).to.equal(etagOf(earlier.png));
      expect((await decodeImage(served.bytes)).text).to.equal('retried');
    });

    it('a job of an older version removes what it wrote and leaves the current one served', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, { type: 'text', data: 'old' });
      await waitForRender(env.app, user.apiKey, id);
      const old = await jobOf(id);
      await client(env.app.url, user.apiKey).put(`/api/qr/${id}/update`, { data: 'new' });
      await waitForRender(env.app, user.apiKey, id);
      const current = await env.image(link);
      expect(await attempt(old)).to.equal('stale');
      expect(events).to.deep.equal([]);
      expect(await storedVersions(id)).to.deep.equal(['2:png', '2:svg']);
      const after = await env.image(link);
      expect(after.res.headers.get('etag')).to.equal(current.res.headers.get('etag'));
      expect((await decodeImage(after.bytes)).text).to.equal('new');
    });

    it('a job for a deleted code leaves no images behind', async () => {
      const user = await createTestUser();
      const { id } = await env.create(user, { type: 'text', data: 'deleted' });
      await waitForRender(env.app, user.apiKey, id);
      const job = await jobOf(id);
      const res = await client(env.app.url, user.apiKey).delete(`/api/qr/${id}/delete`);
      expect(res.status).to.equal(200);
      expect(await attempt(job)).to.equal('stale');
      expect(events).to.deep.equal([]);
      expect(await QrImage.countDocuments({ qrId: id })).to.equal(0);
    });

    it('a job queued by an older API (ids only) renders what the document holds', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, { type: 'text', data: 'ids only', name: 'n' });
      await waitForRender(env.app, user.apiKey, id);
      await pendingVersion(id, 'read from the document');
      expect(await attempt({ qrId: id, renderVersion: 2 })).to.equal('ready');
      expect(events).to.deep.equal([
        [user.user.id, 'qr.ready', { id, alias: aliasOf(link), name: 'n' }],
      ]);
      expect((await decodeImage((await env.image(link)).bytes)).text).to.equal(
        'read from the document',
      );
      expect(await attempt({ qrId: id, renderVersion: 2 })).to.equal('already-ready');
      expect(await attempt({ qrId: id, renderVersion: 1 })).to.equal('stale');
      expect(events).to.have.length(1);
    });

    it('a duplicate failing on its last attempt leaves the version ready', async () => {
      let down = false;
      env.logos.route('/twice.png', (req, res) => {
        if (!down) return servePng(env.red)(req, res);
        res.statusCode = 503;
        res.end();
      });
      const user = await createTestUser();
      const { id, link } = await env.create(
        user,
        { type: 'text', data: 'x', logo: `${env.logos.origin}/twice.png` },
        env.openApp,
      );
      expect((await waitForRender(env.app, user.apiKey, id)).status).to.equal('ready');
      down = true;
      const err = await rejection(attempt(await jobOf(id), 4));
      expect(err.message).to.equal('logo URL answered HTTP 503');
      expect(events).to.deep.equal([]);
      const details = await waitForRender(env.app, user.apiKey, id);
      expect([details.status, details.reason]).to.deep.equal(['ready', null]);
      expect((await env.image(link)).res.status).to.equal(200);
    });

    it('a version failed by another run is not rendered again', async () => {
      const user = await createTestUser();
      const { id } = await env.create(user, { type: 'text', data: 'x' });
      await waitForRender(env.app, user.apiKey, id);
      await pendingVersion(id, 'failed elsewhere');
      const job = await jobOf(id);
      await QrCode.updateOne({ id }, { $set: { status: 'failed', failureReason: 'elsewhere' } });
      expect(await attempt(job)).to.equal('stale');
      expect(await attempt({ qrId: id, renderVersion: 2 })).to.equal('stale');
      expect(events).to.deep.equal([]);
      expect(await storedVersions(id)).to.deep.equal(['1:png', '1:svg']);
      const details = await waitForRender(env.app, user.apiKey, id);
      expect([details.status, details.reason]).to.deep.equal(['failed', 'elsewhere']);
    });
  });

  it('update may change the type; fields not sent keep their values', async () => {
    const user = await createTestUser();
    const { id, link } = await env.create(user, {
      type: 'text',
      data: 'x',
      background: 'rgb(255,255,200)',
      size: 256,
    });
    await waitForRender(env.app, user.apiKey, id);
    const res = await client(env.app.url, user.apiKey).put(`/api/qr/${id}/update`, {
      type: 'phone',
      data: '+15550100',
    });
    expect(res.status).to.equal(200);
    await waitForRender(env.app, user.apiKey, id);
    const { bytes } = await env.image(link);
    expect((await decodeImage(bytes)).text).to.equal('tel:+15550100');
    expect(await pixelAt(bytes, 1, 1)).to.deep.equal([255, 255, 200]);
    expect((await (await import('sharp')).default(bytes).metadata()).width).to.equal(256);
  });

  describe('a failed render', () => {
    it('ends failed with the reason in details when the logo URL is not an image', async () => {
      env.logos.route('/page.png', (_req, res) => res.end('<html>not a logo</html>'));
      const user = await createTestUser();
      const { id, link } = await env.create(
        user,
        { type: 'text', data: 'x', logo: `${env.logos.origin}/page.png` },
        env.openApp,
      );
      const details = await waitForRender(env.app, user.apiKey, id);
      expect(details).to.deep.equal({
        id,
        link,
        scans: 0,
        name: '',
        date: details.date,
        status: 'failed',
        reason: 'logo is not a png or jpeg image',
        style: null,
        formats: formatsOf(link),
      });
      const res = await env.image(link);
      expect(res.res.status).to.equal(422);
      expect(res.bytes.toString()).to.include('could not be rendered');
      expect(env.logos.hits('/page.png')).to.equal(1); // permanent: not retried
    });

    it('retries a transient logo failure with backoff and ends ready', async () => {
      let calls = 0;
      env.logos.route('/flaky.png', (req, res) => {
        calls += 1;
        if (calls === 1) {
          res.statusCode = 503;
          res.end();
          return;
        }
        servePng(env.red)(req, res);
      });
      const user = await createTestUser();
      const { id } = await env.create(
        user,
        { type: 'text', data: 'x', logo: `${env.logos.origin}/flaky.png` },
        env.openApp,
      );
      expect((await waitForRender(env.app, user.apiKey, id)).status).to.equal('ready');
      expect(calls).to.equal(2);
    });

    it('a transient failure on the last attempt ends failed with its reason', async () => {
      env.logos.route('/down.png', (_req, res) => {
        res.statusCode = 503;
        res.end();
      });
      const user = await createTestUser();
      const { id } = await env.create(user, { type: 'text', data: 'x' });
      await waitForRender(env.app, user.apiKey, id);
      // Changed behind the API's back, so no job is queued: only the processor below runs it.
      await QrCode.updateOne(
        { id },
        {
          $set: { status: 'pending', logo: `${env.logos.origin}/down.png` },
          $inc: { renderVersion: 1 },
        },
      );
      const pool = createRenderPool(1);
      try {
        const processJob = createQrRenderProcessor({
          pool,
          logo: { logoDir: env.logoDir, allowPrivate: true },
          logger: env.app.deps.logger,
          lookups: qrLookupCacheFor(env.app.deps),
        });
        const job = {
          data: { qrId: id, renderVersion: 2 },
          opts: { attempts: 5 },
          attemptsMade: 4,
        };
        let thrown: unknown;
        await processJob(job as Job<QrRenderJob>).catch((err: unknown) => (thrown = err));
        expect((thrown as Error).message).to.equal('logo URL answered HTTP 503');
      } finally {
        await pool.close();
      }
      const details = await waitForRender(env.app, user.apiKey, id);
      expect([details.status, details.reason]).to.deep.equal([
        'failed',
        'logo URL answered HTTP 503',
      ]);
    });

    it('an update fixes it', async () => {
      const user = await createTestUser();
      env.logos.route('/gone.png', (_req, res) => {
        res.statusCode = 404;
        res.end();
      });
      const { id, link } = await env.create(
        user,
        { type: 'text', data: 'x', logo: `${env.logos.origin}/gone.png` },
        env.openApp,
      );
      expect((await waitForRender(env.app, user.apiKey, id)).reason).to.equal(
        'logo URL answered HTTP 404',
      );
      await client(env.app.url, user.apiKey).put(`/api/qr/${id}/update`, { data: 'x', logo: null });
      expect((await waitForRender(env.app, user.apiKey, id)).status).to.equal('ready');
      expect((await decodeImage((await env.image(link)).bytes)).text).to.equal('x');
    });
  });

  it('a code stored pending without a job (Redis lost it) is queued by the sweep', async () => {
    const user = await createTestUser();
    const { id } = await env.create(user, { type: 'text', data: 'swept' });
    await waitForRender(env.app, user.apiKey, id);
    // As if the API had stored an update and lost Redis before queueing the job.
    await QrCode.updateOne(
      { id },
      {
        $set: { status: 'pending', payload: 'swept again', updatedAt: new Date(0) },
        $inc: { renderVersion: 1 },
      },
    );
    expect(await env.worker.sweep()).to.be.at.least(1);
    expect((await waitForRender(env.app, user.apiKey, id)).status).to.equal('ready');
  });
});
