import { expect } from 'chai';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { startFakeSource, type FakeSource } from './support/fake-source';
import { client } from './support/http';
import { finishedImport, startTestImportWorker } from './support/imports';
import { visit } from './support/links';
import { decodeImage, startQrWorker, waitForRender } from './support/qr';
import { createTestUser, uniqueName } from './support/users';

const KEY = 'gempixel-api-key-0123456789';
const WIFI = 'WIFI:S:Cafe;T:WPA;P:hunter22;;';

/** A GemPixel list envelope, page `page` of `maxpage`. */
function list(key: string, items: unknown[], page = 1, maxpage = 1) {
  return {
    body: {
      error: '0',
      data: { result: items.length, perpage: 100, currentpage: page, maxpage, [key]: items },
    },
  };
}

const png = async (text: string) => ({ type: 'image/png', bytes: await QRCode.toBuffer(text) });

describe('imports: GemPixel QR codes, read back from their images', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  let renderer: { close(): Promise<void> };
  let cdn: FakeSource;
  let gem: FakeSource;
  const stem = uniqueName('gq');

  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
    renderer = startQrWorker(app);
    const shortUrl = `https://gem.test/${stem}-a`;
    const images: Record<string, { type: string; bytes: Buffer }> = {
      '/qr/81.png': await png(shortUrl),
      '/qr/82.svg': {
        type: 'image/svg+xml',
        bytes: Buffer.from(await QRCode.toString(WIFI, { type: 'svg', width: 400 })),
      },
      '/qr/84.png': {
        type: 'image/png',
        bytes: await sharp({
          create: { width: 200, height: 200, channels: 3, background: '#ffffff' },
        })
          .png()
          .toBuffer(),
      },
    };
    const cdnImage = await png('just some text');
    // Images a GemPixel may serve from another host: the key must never go there.
    cdn = await startFakeSource(() => cdnImage);
    gem = await startFakeSource((url, base) => {
      const image = images[url.pathname];
      if (image) return image;
      switch (url.pathname) {
        case '/api/urls':
          return list('urls', [
            {
              id: 1,
              alias: `${stem}-a`,
              shorturl: shortUrl,
              longurl: 'https://example.com/a',
              title: 'A',
              date: '2024-01-02 00:00:00',
            },
          ]);
        case '/api/qr': {
          const page = Number(url.searchParams.get('page'));
          const qr = (id: number, link: string, name: string) => ({
            id,
            link,
            scans: 3,
            name,
            date: '2024-02-03 04:05:06',
          });
          return page === 1
            ? list(
                'qrs',
                [
                  qr(81, `${base}/qr/81.png`, 'Flyer'),
                  qr(82, `${base}/qr/82.svg`, 'Wifi'),
                  qr(83, `${base}/qr/83.png`, 'Gone'),
                ],
                1,
                2,
              )
            : list(
                'qrs',
                [qr(84, `${base}/qr/84.png`, 'Blank'), qr(85, `${cdn.url}/i/85.png`, 'Elsewhere')],
                2,
                2,
              );
        }
        default:
          return { status: 404, body: { error: 1, message: 'not found' } };
      }
    });
  });
  after(async () => {
    await gem.close();
    await cdn.close();
    await renderer.close();
    await worker.close();
    await app.close();
  });

  it('imports each code with what its image encodes, a short URL following its imported link, and reports the unreadable', async () => {
    const { apiKey, user } = await createTestUser();
    const api = client(app.url, apiKey);
    const started = await api.post<{ id: number }>('/api/import', {
      source: 'gempixel',
      url: gem.url,
      key: KEY,
    });
    expect(started.status, started.text).to.equal(200);
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report, JSON.stringify(report.errors)).to.deep.include({
      status: 'done',
      total: 6,
      imported: 4,
      skipped: 0,
      failed: 2,
    });
    expect(report.errors).to.deep.equal([
      { item: 'qr 83', message: 'its image could not be read: /qr/83.png answered HTTP 404' },
      { item: 'qr 84', message: 'its image does not read as a QR code' },
    ]);

    const codes = await QrCode.find({ userId: user.id }).sort({ id: 1 }).lean();
    expect(codes.map((c) => [c.name, c.type, c.data])).to.deep.equal([
      ['Flyer', 'link', `http://linkqr.test/${stem}-a`],
      ['Wifi', 'text', WIFI],
      ['Elsewhere', 'text', 'just some text'],
    ]);
    expect(codes[0]?.createdAt.toISOString()).to.equal('2024-02-03T04:05:06.000Z');
    const imageRequests = gem.requests.filter((r) => r.path.startsWith('/qr/'));
    expect(imageRequests).to.have.length(4);
    for (const r of imageRequests) expect(r.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(cdn.requests.map((r) => r.headers.authorization)).to.deep.equal([undefined]);

    // The code is rendered here, and a scan reaches the imported link.
    const flyer = codes[0];
    expect((await waitForRender(app, apiKey, flyer?.id ?? 0)).status).to.equal('ready');
    const image = await fetch(`${app.url}/qr/${flyer?.alias}.png`);
    expect(image.status).to.equal(200);
    const scanned = await decodeImage(Buffer.from(await image.arrayBuffer()));
    expect(scanned.text).to.equal(`http://linkqr.test/s/${flyer?.alias}`);
    const scan = await visit(app, `/s/${flyer?.alias}`);
    expect(scan.headers.get('location')).to.equal(`http://linkqr.test/${stem}-a`);
    const redirect = await visit(app, `/${stem}-a`);
    expect(redirect.headers.get('location')).to.equal('https://example.com/a');

    const again = await api.post<{ id: number }>('/api/import', {
      source: 'gempixel',
      url: gem.url,
      key: KEY,
    });
    const rerun = await finishedImport(app, apiKey, again.body.id);
    expect(rerun).to.deep.include({ status: 'done', imported: 0, skipped: 4, failed: 2 });
    expect(await QrCode.countDocuments({ userId: user.id })).to.equal(3);
  });
});
