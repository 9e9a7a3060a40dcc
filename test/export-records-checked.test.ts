import { expect } from 'chai';
import { Campaign } from '../src/campaigns/campaign.model';
import { Channel } from '../src/channels/channel.model';
import { Overlay } from '../src/overlays/overlay.model';
import { Pixel } from '../src/pixels/pixel.model';
import { SplashPage } from '../src/splash/splash-page.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { finishedImport, startTestImportWorker, uploadImport } from './support/imports';
import { createTestUser, uniqueName } from './support/users';

const HEADER = { format: 'linkqr-export', version: 1, source: 'https://old.example' };

interface Refused {
  /** The export's record type and the route that creates one. */
  type: string;
  route: string;
  body: Record<string, unknown>;
}

/**
 * An export is a file its importer may have written: its pixels, splash pages, overlays,
 * campaigns and channels reach this database only as their create routes would store them (what
 * reaches visitor pages, such as a pixel's tag or a splash page's link, is checked where it
 * enters), and a refused record fails with the route's own words.
 */
describe('portable export: records checked as their create routes check them', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp();
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  it('fails each record its create route refuses, with that route’s message, and stores none of them', async () => {
    const refused: Refused[] = [
      {
        type: 'pixel',
        route: '/api/pixel/add',
        body: { type: 'fbpixel', name: 'FB', tag: '1234567890"><script>alert(1)</script>' },
      },
      {
        type: 'pixel',
        route: '/api/pixel/add',
        body: { type: 'retargetpixel', name: 'R', tag: "x'onerror='alert(1)" },
      },
      {
        type: 'splash',
        route: '/api/splash/add',
        body: { name: 'Wait', link: 'javascript:alert(1)' },
      },
      {
        type: 'overlay',
        route: '/api/overlay/add',
        body: { type: 'message', name: 'O', color: 'red;}</style><script>' },
      },
      { type: 'campaign', route: '/api/campaign/add', body: { name: 'C', slug: '../admin' } },
      { type: 'channel', route: '/api/channel/add', body: { name: 'Ch', color: 'url(x)' } },
    ];
    const api = client(app.url, (await createTestUser()).apiKey);
    const messages: string[] = [];
    for (const r of refused) {
      const res = await api.post<{ error: number; message: string }>(r.route, r.body);
      expect(res.status, `${r.route} ${res.text}`).to.equal(422);
      expect(res.body.error).to.equal(1);
      messages.push(res.body.message);
    }

    const { apiKey, user } = await createTestUser();
    const lines = refused.map((r, i) => ({ type: r.type, data: { id: i + 1, ...r.body } }));
    const text = [HEADER, ...lines].map((l) => JSON.stringify(l)).join('\n');
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    expect(started.status, started.text).to.equal(200);
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ status: 'done', total: 6, imported: 0, failed: 6 });
    expect(report.errors).to.deep.equal(
      refused.map((r, i) => ({ item: `${r.type} ${i + 1}`, message: messages[i] })),
    );
    const userId = user.id;
    const stored = await Promise.all(
      [Pixel, SplashPage, Overlay, Campaign, Channel].map((m) =>
        (m as typeof Pixel).countDocuments({ userId }),
      ),
    );
    expect(stored).to.deep.equal([0, 0, 0, 0, 0]);
  });

  it('stores what the route would store (a tag normalised, fields it does not take left behind), keeping the date and the count of responses', async () => {
    const { apiKey, user } = await createTestUser();
    const slug = uniqueName('ck');
    const createdAt = '2024-05-06T07:08:09.000Z';
    const records = [
      {
        type: 'pixel',
        data: {
          id: 1,
          type: 'gtmpixel',
          name: 'GTM',
          tag: ' gtm-ab12cd3 ',
          createdAt,
          verified: 1,
        },
      },
      {
        type: 'overlay',
        data: { id: 2, type: 'message', name: 'Hi', message: 'Hello', responses: 4, createdAt },
      },
      { type: 'campaign', data: { id: 3, name: 'Spring', slug, public: true, clicks: 9 } },
      { type: 'channel', data: { id: 4, name: 'Print', color: '', userId: 1 } },
    ];
    const text = [HEADER, ...records].map((l) => JSON.stringify(l)).join('\n');
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report, JSON.stringify(report.errors)).to.deep.include({
      status: 'done',
      imported: 4,
      failed: 0,
    });
    const userId = user.id;
    const pixel = await Pixel.findOne({ userId }).lean();
    expect(pixel).to.deep.include({ type: 'gtmpixel', name: 'GTM', tag: 'GTM-AB12CD3' });
    expect(pixel?.createdAt.toISOString()).to.equal(createdAt);
    expect(pixel).to.not.have.property('verified');
    const overlay = await Overlay.findOne({ userId }).lean();
    expect(overlay).to.deep.include({ name: 'Hi', message: 'Hello', responses: 4 });
    expect(overlay?.createdAt.toISOString()).to.equal(createdAt);
    const campaign = await Campaign.findOne({ userId }).lean();
    expect(campaign).to.deep.include({ name: 'Spring', slug, public: true });
    expect(campaign).to.not.have.property('clicks');
    const channel = await Channel.findOne({ userId }).lean();
    expect(channel).to.deep.include({ name: 'Print', color: '', userId });
  });
});
