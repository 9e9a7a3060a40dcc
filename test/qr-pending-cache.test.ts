import { expect } from 'chai';
import { QrCode, type QrCodeRecord } from '../src/qr-codes/qr-code.model';
import { QrImage } from '../src/qr-codes/qr-image.model';
import { qrLookupCacheFor } from '../src/qr-codes/qr-lookup-cache';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { eventually } from './support/links';
import { aliasOf, decodeImage, imagePath, startQrWorker } from './support/qr';
import { createTestUser } from './support/users';

/**
 * Polling for an image still rendering is answered from the API's cache; the worker, a process
 * of its own with its own Redis connection, drops the entry when the render ends. The caches'
 * clock stands still, so only that invalidation (never a TTL) can let the image through.
 */
describe('QR codes still rendering, cached by the API', () => {
  let app: TestApp;
  before(async () => {
    // Clients that poll, answered at once (the wait for a render is tested in qr-image-wait).
    app = await startTestApp({ QR_IMAGE_WAIT_MS: '0' }, { cacheClock: { now: () => 1_000_000 } });
    await qrLookupCacheFor(app.deps).whenLive();
  });
  after(() => app.close());

  async function pendingCode(data: string) {
    const { apiKey } = await createTestUser();
    const res = await client(app.url, apiKey).post<{ id: number; link: string }>('/api/qr/add', {
      type: 'text',
      data,
    });
    expect(res.status, res.text).to.equal(200);
    const path = imagePath(res.body.link);
    for (let i = 0; i < 3; i += 1) {
      const poll = await fetch(`${app.url}${path}`);
      expect(poll.status).to.equal(202);
      expect(poll.headers.get('retry-after')).to.equal('2');
    }
    expect(qrLookupCacheFor(app.deps).peek(aliasOf(res.body.link))?.status).to.equal('pending');
    return path;
  }

  it('holds a code from its creation in the creating process, past its own invalidation', async () => {
    const { apiKey } = await createTestUser();
    const res = await client(app.url, apiKey).post<{ link: string }>('/api/qr/add', {
      type: 'text',
      data: 'primed',
    });
    expect(res.status, res.text).to.equal(200);
    const alias = aliasOf(res.body.link);
    const cache = qrLookupCacheFor(app.deps);
    // A marker that another process drops: once it is gone, every message published before it,
    // this process's own invalidation of the new alias included, has been received.
    const other = await startTestApp({}, { cacheClock: { now: () => 1_000_000 } });
    try {
      const marker = `Mk${alias.slice(2)}`;
      cache.prime(marker, { ...(cache.peek(alias) as QrCodeRecord), alias: marker });
      await qrLookupCacheFor(other.deps).invalidate([marker]);
      await eventually(async () => cache.peek(marker) === undefined, 'the marker is dropped');
      expect(cache.peek(alias)?.status).to.equal('pending');
    } finally {
      await other.close();
    }
  });

  it('serves the image once the worker has rendered it', async () => {
    const path = await pendingCode('cached while rendering');
    const worker = startQrWorker(app);
    try {
      let image: Response | undefined;
      await eventually(
        async () => {
          image = await fetch(`${app.url}${path}`);
          return image.status === 200;
        },
        'the rendered image is served',
        10_000,
      );
      const bytes = Buffer.from(await (image as Response).arrayBuffer());
      expect((await decodeImage(bytes)).text).to.equal('cached while rendering');
    } finally {
      await worker.close();
    }
  });

  it('answers 422 once the worker has marked the render failed', async () => {
    const path = await pendingCode('fails to render');
    // A new version too small for any symbol, stored behind the API's back as if Redis had lost
    // its job: the worker's sweep on start queues it, and the render fails, permanently. (The
    // version first queued renders, finds itself replaced and marks nothing.)
    await QrCode.updateOne(
      { alias: path.split('/').pop() },
      { $set: { size: 16, updatedAt: new Date(0) }, $inc: { renderVersion: 1 } },
    );
    const worker = startQrWorker(app);
    try {
      await eventually(
        async () => (await fetch(`${app.url}${path}`)).status === 422,
        'the failure is served',
        10_000,
      );
    } finally {
      await worker.close();
    }
  });

  it('serves a rendered image from memory, and the new one once the code is re-rendered', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const res = await api.post<{ id: number; link: string }>('/api/qr/add', {
      type: 'text',
      data: 'first',
    });
    expect(res.status, res.text).to.equal(200);
    const url = `${app.url}${imagePath(res.body.link)}`;
    const worker = startQrWorker(app);
    try {
      let served: Response | undefined;
      await eventually(
        async () => (served = await fetch(url)).status === 200,
        'the image is served',
        10_000,
      );
      const first = Buffer.from(await (served as Response).arrayBuffer());
      // Gone from the database, still served: the second answer came from memory.
      await QrImage.deleteMany({ qrId: res.body.id });
      const again = await fetch(url);
      expect(again.status).to.equal(200);
      expect(Buffer.from(await again.arrayBuffer()).equals(first)).to.equal(true);

      expect((await api.put(`/api/qr/${res.body.id}/update`, { data: 'second' })).status).to.equal(
        200,
      );
      let text = '';
      await eventually(
        async () => {
          const next = await fetch(url);
          if (next.status !== 200) return false;
          text = (await decodeImage(Buffer.from(await next.arrayBuffer()))).text;
          return true;
        },
        'the re-rendered image is served',
        10_000,
      );
      expect(text).to.equal('second');
      expect((await api.delete(`/api/qr/${res.body.id}/delete`)).status).to.equal(200);
      expect((await fetch(url)).status).to.equal(404);
    } finally {
      await worker.close();
    }
  });
});
