import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Queue, type Job } from 'bullmq';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { bullPrefix, QR_RENDER_QUEUE, type QrRenderJob } from '../src/qr-codes/qr-codes.jobs';
import { createQrRenderProcessor } from '../workers/qr-render/qr-render.processor';
import { createRenderPool } from '../workers/qr-render/render-pool';
import { QrImage } from '../src/qr-codes/qr-image.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, DATE_TIME } from './support/http';
import {
  aliasOf,
  decodeImage,
  imagePath,
  pixelAt,
  servePng,
  solidLogo,
  startLogoServer,
  startQrWorker,
  waitForRender,
  type LogoServer,
  type QrDetails,
} from './support/qr';
import { createTestUser, type TestUser } from './support/users';
import { drainVisits } from './support/visits';
import type { QrRenderWorker } from '../workers/qr-render/qr-render.worker';

const PUBLIC_URL = 'http://linkqr.test';
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15';
const LINK = /^http:\/\/linkqr\.test\/qr\/[A-Za-z0-9]{8}$/;

describe('QR codes', () => {
  let app: TestApp;
  /** Same database and queue, but logo URLs may point at the loopback test server. */
  let openApp: TestApp;
  let worker: QrRenderWorker;
  let logos: LogoServer;
  let logoDir: string;
  let red: Buffer;

  before(async () => {
    logoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-logo-dir-'));
    red = await solidLogo({ r: 220, g: 30, b: 30 });
    fs.writeFileSync(path.join(logoDir, 'red.png'), red);
    fs.writeFileSync(path.join(logoDir, 'readme.png'), 'plain text, not an image');
    fs.symlinkSync('/etc/hostname', path.join(logoDir, 'hostname.png'));
    logos = await startLogoServer();
    logos.route('/red.png', servePng(red));
    app = await startTestApp({ LOGO_DIR: logoDir, COUNTRY_HEADER: 'cf-ipcountry' });
    openApp = await startTestApp({ LOGO_DIR: logoDir, LOGO_ALLOW_PRIVATE: '1' });
    worker = startQrWorker(openApp, { sweepAgeMs: 60_000 });
  });
  after(async () => {
    await worker.close();
    await Promise.all([app.close(), openApp.close(), logos.close()]);
    fs.rmSync(logoDir, { recursive: true, force: true });
  });

  async function create(user: TestUser, body: Record<string, unknown>, target = app) {
    const res = await client(target.url, user.apiKey).post<{ id: number; link: string }>(
      '/api/qr/add',
      body,
    );
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  async function image(link: string, suffix = '', headers: Record<string, string> = {}) {
    const res = await fetch(`${app.url}${imagePath(link)}${suffix}`, { headers });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  describe('rendering each type', () => {
    const cases: Array<[string, unknown, (alias: string) => string]> = [
      ['text', 'Hello, QR — grüße', () => 'Hello, QR — grüße'],
      ['link', 'https://example.com/landing?x=1', (alias) => `${PUBLIC_URL}/s/${alias}`],
      ['phone', '+1 (555) 010-0199', () => 'tel:+15550100199'],
      [
        'email',
        { email: 'hello@example.com', subject: 'Hi there' },
        () => 'mailto:hello@example.com?subject=Hi%20there',
      ],
      ['sms', { phone: '+15550100', message: 'STOP' }, () => 'SMSTO:+15550100:STOP'],
      [
        'wifi',
        { ssid: 'Cafe;Guest', password: 'pa:ss', encryption: 'WPA' },
        () => 'WIFI:T:WPA;S:Cafe\\;Guest;P:pa\\:ss;;',
      ],
      [
        'vcard',
        { firstname: 'Ada', lastname: 'Lovelace', phone: '+44 20 7946 0958' },
        () =>
          'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lovelace;Ada;;;\r\nFN:Ada Lovelace\r\nTEL;TYPE=VOICE:+442079460958\r\nEND:VCARD\r\n',
      ],
    ];
    for (const [type, data, expected] of cases) {
      it(`renders a ${type} code whose PNG decodes to the standard payload`, async () => {
        const user = await createTestUser();
        const created = await create(user, { type, data, name: `my ${type}` });
        expect(created).to.deep.equal({ error: 0, id: created.id, link: created.link });
        expect(created.id).to.be.a('number');
        expect(created.link).to.match(LINK);
        const details = await waitForRender(app, user.apiKey, created.id);
        expect(details.status).to.equal('ready');
        const { res, bytes } = await image(created.link);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('image/png');
        expect((await decodeImage(bytes)).text).to.equal(expected(aliasOf(created.link)));
      });
    }
  });

  it('draws the requested colours: background in the quiet zone, foreground in the finder', async () => {
    const user = await createTestUser();
    const { id, link } = await create(user, {
      type: 'text',
      data: 'colours',
      foreground: 'rgb(20, 40, 120)',
      background: 'rgb(250,240,200)',
      size: 300,
    });
    await waitForRender(app, user.apiKey, id);
    const { bytes } = await image(link);
    const { version } = await decodeImage(bytes);
    const modules = 17 + 4 * version;
    const scale = Math.floor(300 / (modules + 8));
    const offset = Math.floor((300 - scale * modules) / 2);
    const centreOf = (m: number) => offset + m * scale + Math.floor(scale / 2);
    expect(await pixelAt(bytes, 2, 2)).to.deep.equal([250, 240, 200]);
    expect(await pixelAt(bytes, centreOf(0), centreOf(0))).to.deep.equal([20, 40, 120]);
    expect(await pixelAt(bytes, centreOf(3), centreOf(3))).to.deep.equal([20, 40, 120]);
    expect(await pixelAt(bytes, centreOf(1), centreOf(1))).to.deep.equal([250, 240, 200]);
  });

  for (const [source, logo] of [
    ['a file in LOGO_DIR', 'red.png'],
    ['an http URL', '/red.png'],
  ] as const) {
    it(`composites a logo from ${source} in the centre, and the code still decodes`, async () => {
      const user = await createTestUser();
      const value = logo.startsWith('/') ? `${logos.origin}${logo}` : logo;
      const { id, link } = await create(user, { type: 'text', data: 'logo', logo: value }, openApp);
      expect((await waitForRender(app, user.apiKey, id)).status).to.equal('ready');
      const { bytes } = await image(link);
      expect(await pixelAt(bytes, 256, 256)).to.deep.equal([220, 30, 30]);
      expect((await decodeImage(bytes)).text).to.equal('logo');
    });
  }

  it('serves the SVG at .svg and as the default format when asked to', async () => {
    const user = await createTestUser();
    const { id, link } = await create(user, { type: 'text', data: 'vector', format: 'svg' });
    await waitForRender(app, user.apiKey, id);
    for (const suffix of ['', '.svg']) {
      const { res, bytes } = await image(link, suffix);
      expect(res.headers.get('content-type')).to.equal('image/svg+xml');
      expect(bytes.toString()).to.match(/^<svg /);
      expect((await decodeImage(bytes)).text).to.equal('vector');
    }
    const png = await image(link, '.png');
    expect(png.res.headers.get('content-type')).to.equal('image/png');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const user = await createTestUser();
    const { id, link } = await create(user, { type: 'text', data: 'cache me' });
    await waitForRender(app, user.apiKey, id);
    const first = await image(link);
    const etag = first.res.headers.get('etag') as string;
    expect(etag).to.match(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.res.headers.get('cache-control')).to.equal('public, no-cache');
    // fetch() adds Cache-Control: no-cache to conditional requests; the origin still validates.
    const again = await image(link, '', { 'if-none-match': `"other", ${etag}` });
    expect(again.res.status).to.equal(304);
    expect(again.bytes.length).to.equal(0);
    const weak = await image(link, '', { 'if-none-match': `W/${etag}` });
    expect(weak.res.status).to.equal(304);
    const stale = await image(link, '', { 'if-none-match': '"other"' });
    expect(stale.res.status).to.equal(200);
  });

  it('answers 202 with Retry-After while the image is pending', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    logos.route('/held.png', (_req, res) => void held.then(() => servePng(red)(_req, res)));
    const user = await createTestUser();
    const { id, link } = await create(
      user,
      { type: 'text', data: 'later', logo: `${logos.origin}/held.png` },
      openApp,
    );
    const pending = await image(link);
    expect(pending.res.status).to.equal(202);
    expect(pending.res.headers.get('retry-after')).to.equal('2');
    expect(pending.res.headers.get('cache-control')).to.equal('no-store');
    const details = await client(app.url, user.apiKey).get<{ details: QrDetails }>(`/api/qr/${id}`);
    expect(details.body.details.status).to.equal('pending');
    release();
    expect((await waitForRender(app, user.apiKey, id)).status).to.equal('ready');
    expect((await image(link)).res.status).to.equal(200);
  });

  it('re-renders on update, replacing the image and removing the old one', async () => {
    const user = await createTestUser();
    const api = client(app.url, user.apiKey);
    const { id, link } = await create(user, { type: 'text', data: 'first' });
    await waitForRender(app, user.apiKey, id);
    const before = await image(link);
    const res = await api.put(`/api/qr/${id}/update`, {
      data: 'second',
      foreground: 'rgb(0,80,0)',
      name: 'renamed',
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ error: 0, message: 'QR code has been successfully updated.' });
    const details = await waitForRender(app, user.apiKey, id);
    expect([details.status, details.name]).to.deep.equal(['ready', 'renamed']);
    const after = await image(link);
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
        connection: app.deps.redis,
        prefix: bullPrefix(app.deps.keys),
      });
    });
    after(() => queue.close());

    /** Queues a job and waits until the worker has finished with it (completed jobs are removed). */
    async function runJob(job: QrRenderJob) {
      await app.deps.qrQueue.enqueue(job);
      const deadline = Date.now() + 10_000;
      while (await queue.getJob(`qr-${job.qrId}-v${job.renderVersion}`)) {
        if (Date.now() > deadline) throw new Error('job still queued');
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it('a late job for an older version changes nothing; a duplicate of the current one neither', async () => {
      const user = await createTestUser();
      const { id, link } = await create(user, { type: 'text', data: 'v1' });
      await waitForRender(app, user.apiKey, id);
      await client(app.url, user.apiKey).put(`/api/qr/${id}/update`, { data: 'v2' });
      await waitForRender(app, user.apiKey, id);
      const current = await image(link);
      await runJob({ qrId: id, renderVersion: 1 });
      await runJob({ qrId: id, renderVersion: 2 });
      const after = await image(link);
      expect(after.res.headers.get('etag')).to.equal(current.res.headers.get('etag'));
      expect((await decodeImage(after.bytes)).text).to.equal('v2');
      const stored = await QrImage.find({ qrId: id }).lean();
      expect(stored.map((i) => i.renderVersion)).to.deep.equal([2, 2]);
    });

    it('the same content renders to the same bytes: an identical update keeps the ETag', async () => {
      const user = await createTestUser();
      const body = { type: 'text', data: 'same', foreground: 'rgb(0,0,90)' };
      const { id, link } = await create(user, body);
      await waitForRender(app, user.apiKey, id);
      const first = await image(link, '.svg');
      const firstPng = await image(link);
      await client(app.url, user.apiKey).put(`/api/qr/${id}/update`, body);
      await waitForRender(app, user.apiKey, id);
      expect((await image(link, '.svg')).res.headers.get('etag')).to.equal(
        first.res.headers.get('etag'),
      );
      expect((await image(link)).res.headers.get('etag')).to.equal(
        firstPng.res.headers.get('etag'),
      );
    });
  });

  it('update may change the type; fields not sent keep their values', async () => {
    const user = await createTestUser();
    const { id, link } = await create(user, {
      type: 'text',
      data: 'x',
      background: 'rgb(255,255,200)',
      size: 256,
    });
    await waitForRender(app, user.apiKey, id);
    const res = await client(app.url, user.apiKey).put(`/api/qr/${id}/update`, {
      type: 'phone',
      data: '+15550100',
    });
    expect(res.status).to.equal(200);
    await waitForRender(app, user.apiKey, id);
    const { bytes } = await image(link);
    expect((await decodeImage(bytes)).text).to.equal('tel:+15550100');
    expect(await pixelAt(bytes, 1, 1)).to.deep.equal([255, 255, 200]);
    expect((await (await import('sharp')).default(bytes).metadata()).width).to.equal(256);
  });

  describe('a failed render', () => {
    it('ends failed with the reason in details when the logo URL is not an image', async () => {
      logos.route('/page.png', (_req, res) => res.end('<html>not a logo</html>'));
      const user = await createTestUser();
      const { id, link } = await create(
        user,
        { type: 'text', data: 'x', logo: `${logos.origin}/page.png` },
        openApp,
      );
      const details = await waitForRender(app, user.apiKey, id);
      expect(details).to.deep.equal({
        id,
        link,
        scans: 0,
        name: '',
        date: details.date,
        status: 'failed',
        reason: 'logo is not a png or jpeg image',
      });
      const res = await image(link);
      expect(res.res.status).to.equal(422);
      expect(res.bytes.toString()).to.include('could not be rendered');
      expect(logos.hits('/page.png')).to.equal(1); // permanent: not retried
    });

    it('retries a transient logo failure with backoff and ends ready', async () => {
      let calls = 0;
      logos.route('/flaky.png', (req, res) => {
        calls += 1;
        if (calls === 1) {
          res.statusCode = 503;
          res.end();
          return;
        }
        servePng(red)(req, res);
      });
      const user = await createTestUser();
      const { id } = await create(
        user,
        { type: 'text', data: 'x', logo: `${logos.origin}/flaky.png` },
        openApp,
      );
      expect((await waitForRender(app, user.apiKey, id)).status).to.equal('ready');
      expect(calls).to.equal(2);
    });

    it('a transient failure on the last attempt ends failed with its reason', async () => {
      logos.route('/down.png', (_req, res) => {
        res.statusCode = 503;
        res.end();
      });
      const user = await createTestUser();
      const { id } = await create(user, { type: 'text', data: 'x' });
      await waitForRender(app, user.apiKey, id);
      // Changed behind the API's back, so no job is queued: only the processor below runs it.
      await QrCode.updateOne(
        { id },
        {
          $set: { status: 'pending', logo: `${logos.origin}/down.png` },
          $inc: { renderVersion: 1 },
        },
      );
      const pool = createRenderPool(1);
      try {
        const processJob = createQrRenderProcessor({
          pool,
          logo: { logoDir, allowPrivate: true },
          logger: app.deps.logger,
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
      const details = await waitForRender(app, user.apiKey, id);
      expect([details.status, details.reason]).to.deep.equal([
        'failed',
        'logo URL answered HTTP 503',
      ]);
    });

    it('an update fixes it', async () => {
      const user = await createTestUser();
      logos.route('/gone.png', (_req, res) => {
        res.statusCode = 404;
        res.end();
      });
      const { id, link } = await create(
        user,
        { type: 'text', data: 'x', logo: `${logos.origin}/gone.png` },
        openApp,
      );
      expect((await waitForRender(app, user.apiKey, id)).reason).to.equal(
        'logo URL answered HTTP 404',
      );
      await client(app.url, user.apiKey).put(`/api/qr/${id}/update`, { data: 'x', logo: null });
      expect((await waitForRender(app, user.apiKey, id)).status).to.equal('ready');
      expect((await decodeImage((await image(link)).bytes)).text).to.equal('x');
    });
  });

  it('a code stored pending without a job (Redis lost it) is queued by the sweep', async () => {
    const user = await createTestUser();
    const { id } = await create(user, { type: 'text', data: 'swept' });
    await waitForRender(app, user.apiKey, id);
    // As if the API had stored an update and lost Redis before queueing the job.
    await QrCode.updateOne(
      { id },
      {
        $set: { status: 'pending', payload: 'swept again', updatedAt: new Date(0) },
        $inc: { renderVersion: 1 },
      },
    );
    expect(await worker.sweep()).to.be.at.least(1);
    expect((await waitForRender(app, user.apiKey, id)).status).to.equal('ready');
  });

  describe('listing and reading', () => {
    it('lists the caller codes newest first with exactly the spec fields', async () => {
      const user = await createTestUser();
      const a = await create(user, { type: 'text', data: 'a', name: 'A' });
      const b = await create(user, { type: 'text', data: 'b' });
      await createTestUser().then((other) => create(other, { type: 'text', data: 'other' }));
      const res = await client(app.url, user.apiKey).get<{
        data: { qrs: Array<{ date: string }> };
      }>('/api/qr?limit=1&page=2');
      expect(res.status).to.equal(200);
      const date = res.body.data.qrs[0]?.date as string;
      expect(date).to.match(DATE_TIME);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 1,
          currentpage: 2,
          nextpage: 2,
          maxpage: 2,
          qrs: [{ id: a.id, link: a.link, scans: 0, name: 'A', date }],
        },
      });
      const first = await client(app.url, user.apiKey).get<{
        data: { qrs: Array<{ id: number }> };
      }>('/api/qr?limit=1');
      expect(first.body.data.qrs.map((q) => q.id)).to.deep.equal([b.id]);
    });

    it('answers one code with its details and the statistics object', async () => {
      const user = await createTestUser();
      const { id, link } = await create(user, { type: 'text', data: 'stats', name: 'Stats' });
      await waitForRender(app, user.apiKey, id);
      const res = await client(app.url, user.apiKey).get<{ details: QrDetails }>(`/api/qr/${id}`);
      expect(res.status).to.equal(200);
      expect(res.body.details.date).to.match(DATE_TIME);
      expect(res.body).to.deep.equal({
        error: 0,
        details: {
          id,
          link,
          scans: 0,
          name: 'Stats',
          date: res.body.details.date,
          status: 'ready',
          reason: null,
        },
        data: {
          clicks: 0,
          uniqueClicks: 0,
          topCountries: {},
          topReferrers: {},
          topBrowsers: {},
          topOs: {},
          socialCount: { facebook: 0, twitter: 0, linkedin: 0 },
        },
      });
    });

    it("answers 404 for another user's code, on read, update and delete", async () => {
      const owner = await createTestUser();
      const { id } = await create(owner, { type: 'text', data: 'mine' });
      const api = client(app.url, (await createTestUser()).apiKey);
      const notFound = { error: 1, message: 'QR code not found' };
      for (const res of [
        await api.get(`/api/qr/${id}`),
        await api.put(`/api/qr/${id}/update`, { data: 'x' }),
        await api.delete(`/api/qr/${id}/delete`),
      ]) {
        expect([res.status, res.body]).to.deep.equal([404, notFound]);
      }
    });
  });

  describe('the dynamic link', () => {
    it('redirects /s/{alias} to the target, which an update changes without a new image payload', async () => {
      const user = await createTestUser();
      const { id, link } = await create(user, { type: 'link', data: 'https://example.com/one' });
      await waitForRender(app, user.apiKey, id);
      const alias = aliasOf(link);
      const scan = await fetch(`${app.url}/s/${alias}`, { redirect: 'manual' });
      expect(scan.status).to.equal(302);
      expect(scan.headers.get('location')).to.equal('https://example.com/one');
      expect(scan.headers.get('cache-control')).to.equal('private, no-store');
      await client(app.url, user.apiKey).put(`/api/qr/${id}/update`, {
        data: { url: 'https://example.com/two' },
      });
      await waitForRender(app, user.apiKey, id);
      const again = await fetch(`${app.url}/s/${alias}`, { redirect: 'manual' });
      expect(again.headers.get('location')).to.equal('https://example.com/two');
      expect((await decodeImage((await image(link)).bytes)).text).to.equal(
        `${PUBLIC_URL}/s/${alias}`,
      );
    });

    it('records every scan: the exact statistics object, and scans in details and lists', async () => {
      const user = await createTestUser();
      const { id, link } = await create(user, {
        type: 'link',
        data: 'https://example.com/target',
        name: 'Poster',
      });
      const alias = aliasOf(link);
      const scan = async (headers: Record<string, string>) => {
        const res = await fetch(`${app.url}/s/${alias}`, { redirect: 'manual', headers });
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal('https://example.com/target');
      };
      await scan({
        'user-agent': CHROME_WINDOWS,
        'cf-ipcountry': 'DE',
        referer: 'https://www.facebook.com/p/1',
      });
      await scan({ 'user-agent': CHROME_WINDOWS, 'cf-ipcountry': 'DE', referer: 'https://t.co/x' });
      await scan({ 'user-agent': FIREFOX_LINUX, 'cf-ipcountry': 'FR' });
      await scan({
        'user-agent': SAFARI_MAC,
        'cf-ipcountry': 'DE',
        referer: 'https://www.linkedin.com/feed',
      });
      // A link-preview crawler is recorded but left out of the statistics.
      await scan({ 'user-agent': 'Twitterbot/1.0', 'cf-ipcountry': 'US' });
      await drainVisits(app);

      const res = await client(app.url, user.apiKey).get<{
        details: QrDetails;
        data: { topCountries: Record<string, string> };
      }>(`/api/qr/${id}`);
      expect(res.body).to.deep.equal({
        error: 0,
        details: {
          id,
          link,
          scans: 4,
          name: 'Poster',
          date: res.body.details.date,
          status: res.body.details.status,
          reason: null,
        },
        data: {
          clicks: 4,
          // one address: visitors differ by browser only
          uniqueClicks: 3,
          topCountries: { Germany: '3', France: '1' },
          topReferrers: { Direct: '1', 'facebook.com': '1', 'linkedin.com': '1', 't.co': '1' },
          topBrowsers: { Chrome: '2', Firefox: '1', Safari: '1' },
          topOs: { Windows: '2', Linux: '1', 'Mac OS': '1' },
          socialCount: { facebook: 1, twitter: 1, linkedin: 1 },
        },
      });
      expect(Object.keys(res.body.data.topCountries)).to.deep.equal(['Germany', 'France']);
      const list = await client(app.url, user.apiKey).get<{
        data: { qrs: Array<{ id: number; scans: number }> };
      }>('/api/qr');
      expect(list.body.data.qrs.map((q) => [q.id, q.scans])).to.deep.equal([[id, 4]]);
    });

    it('answers the visitor 404 for codes that are not links and for unknown aliases', async () => {
      const user = await createTestUser();
      const { link } = await create(user, { type: 'text', data: 'static' });
      for (const p of [`/s/${aliasOf(link)}`, '/s/Zz99Zz99', '/qr/Zz99Zz99', '/qr/..%2Fetc']) {
        const res = await fetch(`${app.url}${p}`, { redirect: 'manual' });
        expect(res.status, p).to.equal(404);
      }
    });
  });

  it('deletes a code with its images and scans; its addresses then answer 404', async () => {
    const user = await createTestUser();
    const api = client(app.url, user.apiKey);
    const { id, link } = await create(user, { type: 'link', data: 'https://example.com/' });
    await waitForRender(app, user.apiKey, id);
    await fetch(`${app.url}/s/${aliasOf(link)}`, {
      redirect: 'manual',
      headers: { 'user-agent': FIREFOX_LINUX },
    });
    await drainVisits(app);
    expect((await app.deps.visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(1);
    const res = await api.delete(`/api/qr/${id}/delete`);
    expect([res.status, res.body]).to.deep.equal([
      200,
      { error: 0, message: 'QR code has been successfully deleted.' },
    ]);
    expect(await QrImage.countDocuments({ qrId: id })).to.equal(0);
    expect((await app.deps.visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(0);
    expect((await image(link)).res.status).to.equal(404);
    expect((await fetch(`${app.url}/s/${aliasOf(link)}`, { redirect: 'manual' })).status).to.equal(
      404,
    );
    expect((await api.get(`/api/qr/${id}`)).status).to.equal(404);
  });

  describe('validation (422)', () => {
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['a missing type', { data: 'x' }, 'type is required'],
      [
        'an unknown type',
        { type: 'barcode', data: 'x' },
        'type must be one of [text, vcard, link, email, phone, sms, wifi]',
      ],
      ['missing data', { type: 'text' }, 'data is required'],
      ['data of the wrong shape', { type: 'text', data: 5 }, 'data must be a string or an object'],
      [
        'a link that is not http(s)',
        { type: 'link', data: 'javascript:alert(1)' },
        'data must be an http(s) URL',
      ],
      ['a bad email', { type: 'email', data: { email: 'no' } }, 'data.email must be a valid email'],
      [
        'a bad phone',
        { type: 'phone', data: 'phone me' },
        'data must be a phone number such as +15551234567',
      ],
      ['sms without a phone', { type: 'sms', data: { message: 'hi' } }, 'data.phone is required'],
      [
        'wifi without encryption',
        { type: 'wifi', data: { ssid: 'x' } },
        'data.encryption is required',
      ],
      [
        'a vcard without a name',
        { type: 'vcard', data: { email: 'a@b.co' } },
        'data needs at least one of firstname, lastname or org',
      ],
      [
        'a colour out of range',
        { type: 'text', data: 'x', foreground: 'rgb(256,0,0)' },
        'foreground must be of the form rgb(r,g,b) with 0..255 each',
      ],
      [
        'a hex colour',
        { type: 'text', data: 'x', background: '#ffffff' },
        'background must be of the form rgb(r,g,b) with 0..255 each',
      ],
      [
        'low contrast',
        { type: 'text', data: 'x', foreground: 'rgb(200,200,200)' },
        'foreground and background contrast is 1.67:1; at least 3:1 is needed for the code to scan',
      ],
      [
        'light on dark',
        { type: 'text', data: 'x', foreground: 'rgb(255,255,255)', background: 'rgb(0,0,0)' },
        'foreground must be darker than background: many scanners cannot read light-on-dark codes',
      ],
      [
        'a logo file that is not an image',
        { type: 'text', data: 'x', logo: 'readme.png' },
        'logo is not a png or jpeg image',
      ],
      [
        'a logo path outside LOGO_DIR',
        { type: 'text', data: 'x', logo: '../../etc/passwd' },
        'logo path must stay inside LOGO_DIR',
      ],
      [
        'a logo symlink out of LOGO_DIR',
        { type: 'text', data: 'x', logo: 'hostname.png' },
        'logo path must stay inside LOGO_DIR',
      ],
      [
        'a missing logo file',
        { type: 'text', data: 'x', logo: 'nope.png' },
        'logo file not found in LOGO_DIR',
      ],
      [
        'a file: logo URL',
        { type: 'text', data: 'x', logo: 'file:///etc/passwd' },
        'logo URL must use http or https',
      ],
      [
        'a size too small',
        { type: 'text', data: 'x', size: 64 },
        'size must be greater than or equal to 128',
      ],
      [
        'a format we do not serve',
        { type: 'text', data: 'x', format: 'gif' },
        'format must be one of [png, svg]',
      ],
      [
        'data too long for any QR code',
        { type: 'text', data: 'x'.repeat(2000), logo: 'red.png' },
        'data is too long to fit in a QR code',
      ],
      [
        'data too dense for the size',
        { type: 'text', data: 'y'.repeat(1000), size: 128 },
        'size 128 px is too small for this much data: at least 258 px is needed',
      ],
      ['an unknown field', { type: 'text', data: 'x', colour: 'red' }, 'colour is not allowed'],
    ];
    for (const [what, body, message] of refusals) {
      it(`refuses ${what}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/qr/add', body);
        expect([res.status, res.body]).to.deep.equal([422, { error: 1, message }]);
      });
    }

    it('refuses a logo URL that reaches a private address, by IP or by name', async () => {
      const { apiKey } = await createTestUser();
      const port = new URL(logos.origin).port;
      for (const logo of [
        `${logos.origin}/red.png`,
        `http://localhost:${port}/red.png`,
        'http://[::ffff:127.0.0.1]/red.png',
        'http://169.254.169.254/latest/meta-data',
      ]) {
        const res = await client(app.url, apiKey).post('/api/qr/add', {
          type: 'text',
          data: 'x',
          logo,
        });
        expect([res.status, res.body], logo).to.deep.equal([
          422,
          { error: 1, message: 'logo URL points to a private or local network address' },
        ]);
      }
      expect(logos.hits('/red.png')).to.equal(1); // only the allowed download of the logo test
    });

    it('checks the update against the stored type, colours and logo', async () => {
      const user = await createTestUser();
      const api = client(app.url, user.apiKey);
      const { id } = await create(user, {
        type: 'wifi',
        data: { ssid: 'a', encryption: 'nopass' },
      });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'data is required'],
        [{ data: 'just a string' }, 'data must be of type object'],
        [
          { data: { ssid: 'a', encryption: 'nopass' }, foreground: 'rgb(250,250,250)' },
          'foreground and background contrast is 1.04:1; at least 3:1 is needed for the code to scan',
        ],
        [
          { data: { ssid: 'a', encryption: 'nopass' }, logo: '/etc/passwd' },
          'logo path must stay inside LOGO_DIR',
        ],
      ];
      for (const [body, message] of cases) {
        const res = await api.put(`/api/qr/${id}/update`, body);
        expect([res.status, res.body], message).to.deep.equal([422, { error: 1, message }]);
      }
    });
  });
});
