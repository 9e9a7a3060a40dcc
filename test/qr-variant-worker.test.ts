import { expect } from 'chai';
import { Queue } from 'bullmq';
import sharp from 'sharp';
import {
  bullPrefix,
  QR_VARIANT_QUEUE,
  qrVariantJobId,
  type QrVariantJob,
} from '../src/qr-codes/qr-codes.jobs';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { QrImage } from '../src/qr-codes/qr-image.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { eventually } from './support/links';
import { decodeImage, imagePath, startQrWorker, waitForRender } from './support/qr';
import { createTestUser } from './support/users';
import type { QrRenderWorker } from '../workers/qr-render/qr-render.worker';

/**
 * A PNG at another size (and PDF, EPS) is drawn by the render worker, never by the API process:
 * the API queues a variant job and waits for it as it waits for a render.
 */
describe('QR image variants drawn by the worker', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: QrRenderWorker | undefined;
  let variants: Queue<QrVariantJob>;

  before(async () => {
    app = await startTestApp({ QR_IMAGE_WAIT_MS: '300' });
    variants = new Queue<QrVariantJob>(QR_VARIANT_QUEUE, {
      connection: app.deps.redis,
      prefix: bullPrefix(app.deps.keys),
    });
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });
  after(async () => {
    await variants.close();
    await app.close();
  });

  /** A code rendered by a worker that is stopped once the code is ready. */
  async function readyCode(data: string) {
    const user = await createTestUser();
    const res = await client(app.url, user.apiKey).post<{ id: number; link: string }>(
      '/api/qr/add',
      { type: 'text', data },
    );
    expect(res.status, res.text).to.equal(200);
    worker = startQrWorker(app);
    expect((await waitForRender(app, user.apiKey, res.body.id, 40_000)).status).to.equal('ready');
    await worker.close();
    worker = undefined;
    return res.body;
  }

  async function renderVersion(id: number): Promise<number> {
    const qr = await QrCode.findOne({ id }).lean();
    return qr?.renderVersion ?? 0;
  }

  it('answers a size asked for while no worker runs as a pending render (202), queues the job, and serves what the worker stores', async () => {
    const { id, link } = await readyCode('drawn elsewhere');
    const url = `${app.url}${imagePath(link)}.png?size=1024`;

    const pending = await fetch(url);
    expect(pending.status).to.equal(202);
    expect(pending.headers.get('retry-after')).to.equal('2');
    expect(pending.headers.get('cache-control')).to.equal('no-store');
    expect(await pending.text()).to.include('being rendered');
    // The API drew nothing: no variant stored, one job waiting for a worker.
    expect(await QrImage.countDocuments({ qrId: id, format: 'png@1024' })).to.equal(0);
    const ask = { format: 'png' as const, size: 1024 };
    const job = await variants.getJob(qrVariantJobId({ qrId: id, renderVersion: 1, ask }));
    expect(await job?.getState()).to.equal('waiting');
    expect(job?.data).to.deep.equal({ qrId: id, renderVersion: await renderVersion(id), ask });

    worker = startQrWorker(app);
    await eventually(
      async () => (await QrImage.countDocuments({ qrId: id, format: 'png@1024' })) === 1,
      'the worker stores the variant',
      20_000,
    );
    const stored = await QrImage.findOne({ qrId: id, format: 'png@1024' }).lean();
    const served = await fetch(url);
    expect(served.status).to.equal(200);
    expect(served.headers.get('etag')).to.equal(stored?.etag);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect((await sharp(bytes).metadata()).width).to.equal(1024);
    expect((await decodeImage(bytes)).text).to.equal('drawn elsewhere');
  });

  it('answers 422 with the reason for a size the worker refuses, and keeps the refusal', async () => {
    // About 500 bytes at level M: a symbol too wide for two pixels a module at 128 px.
    const { id, link } = await readyCode('x'.repeat(500));
    worker = startQrWorker(app);
    const url = `${app.url}${imagePath(link)}.png?size=128`;
    let res = await fetch(url);
    // The short wait of this app may end before the worker has refused it.
    for (let i = 0; res.status === 202 && i < 50; i += 1) res = await fetch(url);
    expect(res.status).to.equal(422);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(await res.text()).to.match(/size 128 px is too small for this code: at least \d+ px/);
    const ask = { format: 'png' as const, size: 128 };
    const job = await variants.getJob(qrVariantJobId({ qrId: id, renderVersion: 1, ask }));
    expect(await job?.getState()).to.equal('failed');
    expect(await QrImage.countDocuments({ qrId: id, format: /@/ })).to.equal(0);

    await worker.close();
    worker = undefined;
    const again = await fetch(url);
    expect(again.status, 'answered from the kept refusal, with no worker').to.equal(422);
  });
});
