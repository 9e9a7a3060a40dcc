import { expect } from 'chai';
import { Bio } from '../src/bio/bio.model';
import { Campaign } from '../src/campaigns/campaign.model';
import { Channel } from '../src/channels/channel.model';
import { Link } from '../src/links/link.model';
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

  it("fails a link whose behaviour fields url/add refuses, with url/add's message, and stores a sound one as url/add would", async () => {
    const api = client(app.url, (await createTestUser()).apiKey);
    const refusals = [
      { geotarget: [{ location: 'Germany', link: 'javascript:alert(1)' }] },
      { metaimage: 'javascript:alert(1)' },
      {
        variants: [
          { url: 'https://example.com/a', weight: 100 },
          { url: 'data:,x', weight: 0 },
        ],
      },
    ];
    const messages: string[] = [];
    for (const body of refusals) {
      const res = await api.post<{ error: number; message: string }>('/api/url/add', {
        url: 'https://example.com/t',
        ...body,
      });
      expect(res.status, res.text).to.equal(422);
      messages.push(res.body.message);
    }
    const { apiKey, user } = await createTestUser();
    const stem = uniqueName('lf');
    const links = refusals.map((fields, i) => ({
      type: 'link',
      data: { id: i + 1, alias: `${stem}-${i}`, url: 'https://example.com/t', ...fields },
    }));
    const sound = {
      type: 'link',
      data: {
        id: 9,
        alias: `${stem}-ok`,
        url: 'https://example.com/ok',
        geotarget: [{ location: 'Germany', link: 'https://example.de/' }],
        maxClicks: 5,
        clicks: 3,
        health: { status: 'broken', failures: 99 },
        searchKeys: ['someone-else'],
        evil: '<script>',
      },
    };
    const text = [HEADER, ...links, sound].map((l) => JSON.stringify(l)).join('\n');
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ status: 'done', total: 4, imported: 1, failed: 3 });
    expect(report.errors).to.deep.equal(
      messages.map((message, i) => ({ item: String(i + 1), message })),
    );
    const stored = await Link.find({ userId: user.id }).lean();
    expect(stored).to.have.length(1);
    expect(stored[0]).to.deep.include({
      alias: `${stem}-ok`,
      geotarget: [{ location: 'Germany', link: 'https://example.de/' }],
      maxClicks: 5,
      clicks: 3,
      health: null,
    });
    expect(stored[0]?.searchKeys).to.not.include('someone-else');
    expect(stored[0]).to.not.have.property('evil');
  });

  it('imports a bio page as bio/add would: a taken alias skipped (or renamed with onConflict rename), a bad link refused', async () => {
    const owner = await createTestUser();
    const taken = uniqueName('bt');
    const made = await client(app.url, owner.apiKey).post('/api/bio/add', {
      name: 'Theirs',
      alias: taken,
    });
    expect(made.status, made.text).to.equal(200);
    const links = [{ title: 'Shop', url: 'https://example.com/shop', clicks: 5 }];
    const pages = [
      { type: 'bio', data: { id: 1, name: 'Mine', alias: taken, links } },
      {
        type: 'bio',
        data: { id: 2, name: 'Bad', links: [{ title: 'x', url: 'javascript:alert(1)' }] },
      },
    ];
    const text = [HEADER, ...pages].map((l) => JSON.stringify(l)).join('\n');

    const skipper = await createTestUser();
    const skipped = await finishedImport(
      app,
      skipper.apiKey,
      (await uploadImport(app, skipper.apiKey, text, { source: 'linkqr' })).body.id,
    );
    expect(skipped).to.deep.include({ status: 'done', imported: 0, skipped: 1, failed: 1 });
    expect(skipped.errors).to.deep.equal([
      { item: 'bio 1', message: `alias ${taken} is already taken: skipped` },
      { item: 'bio 2', message: 'links[0].url must be an http or https URL' },
    ]);

    const renamer = await createTestUser();
    const renamed = await finishedImport(
      app,
      renamer.apiKey,
      (await uploadImport(app, renamer.apiKey, text, { source: 'linkqr', onConflict: 'rename' }))
        .body.id,
    );
    expect(renamed).to.deep.include({ status: 'done', imported: 1, failed: 1 });
    const page = await Bio.findOne({ userId: renamer.user.id }).lean();
    expect(page?.alias).to.not.equal(taken);
    expect(page?.links).to.deep.equal([{ title: 'Shop', url: 'https://example.com/shop' }]);
    expect(renamed.errors[0]).to.deep.equal({
      item: 'bio 1',
      message: `alias ${taken} was taken: imported as ${page?.alias}`,
    });
  });
});
