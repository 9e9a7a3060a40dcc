import { expect } from 'chai';
import { Redis } from 'ioredis';
import { Campaign } from '../src/campaigns/campaign.model';
import { Channel, ChannelItem } from '../src/channels/channel.model';
import { ImportJob } from '../src/imports/import.model';
import { Pixel } from '../src/pixels/pixel.model';
import { SplashPage } from '../src/splash/splash-page.model';
import { sealKey, unsealKey } from '../src/imports/imports.jobs';
import { Link, type LinkRecord } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { pageOf, startFakeSource, type FakeHandler, type FakeSource } from './support/fake-source';
import { client } from './support/http';
import { finishedImport, startTestImportWorker, type ImportReport } from './support/imports';
import { createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

const SIZE = 3;
const KEY = 'source-api-key-0123456789';

/** Seven links of a source, in linkqr's terms, with the alias of the fifth taken elsewhere. */
function sourceLinks(stem: string) {
  return Array.from({ length: 7 }, (_, i) => ({
    alias: `${stem}-${i}`,
    url: `https://example.com/${stem}/${i}`,
    title: `Title ${i}`,
    created: '2022-02-0' + String(i + 1),
  }));
}
type SourceLink = ReturnType<typeof sourceLinks>[number];

interface SourceCase {
  source: string;
  /** The header and value the source expects the key in. */
  keyHeader: [string, string];
  handler(links: SourceLink[]): FakeHandler;
  /** What the import must have stored beyond url, alias and title. */
  check(link: LinkRecord, source: SourceLink): void;
  /** What the report must say of the first link. */
  reported?(source: SourceLink): Array<{ item: string; message: string }>;
}

const cases: SourceCase[] = [
  {
    source: 'shlink',
    keyHeader: ['x-api-key', KEY],
    handler: (links) => (url) => {
      expect(url.pathname).to.equal('/rest/v3/short-urls');
      const { items, pages } = pageOf(links, Number(url.searchParams.get('page')), SIZE);
      return {
        body: {
          shortUrls: {
            data: items.map((l, i) => ({
              shortCode: l.alias,
              shortUrl: `https://s.test/${l.alias}`,
              longUrl: l.url,
              dateCreated: `${l.created}T10:00:00+02:00`,
              tags: i === 0 ? ['spring', 'print'] : [],
              meta:
                l === links[0]
                  ? {
                      validSince: '2022-01-01T00:00:00+00:00',
                      validUntil: '2031-01-01T00:00:00+00:00',
                      maxVisits: 25,
                    }
                  : { validSince: null, validUntil: '2031-01-01T00:00:00+00:00', maxVisits: null },
              domain: null,
              title: l.title,
            })),
            pagination: {
              currentPage: Number(url.searchParams.get('page')),
              pagesCount: pages,
              totalItems: links.length,
            },
          },
        },
      };
    },
    check: (link, source) => {
      expect(link.expiry?.toISOString()).to.equal('2031-01-01T00:00:00.000Z');
      expect(link.createdAt.toISOString()).to.equal(`${source.created}T08:00:00.000Z`);
      expect(link.maxClicks, 'maxVisits is the click limit').to.equal(25);
    },
    reported: (source) => [
      {
        item: `/${source.alias}`,
        message:
          'validSince 2022-01-01T00:00:00+00:00 skipped: linkqr links have no start date, this one is live from its import',
      },
    ],
  },
  {
    source: 'kutt',
    keyHeader: ['x-api-key', KEY],
    handler: (links) => (url) => {
      expect(url.pathname).to.equal('/api/v2/links');
      const skip = Number(url.searchParams.get('skip'));
      const data = links.slice(skip, skip + SIZE).map((l) => ({
        id: `uuid-${l.alias}`,
        address: l.alias,
        banned: false,
        description: l.title,
        password: l.alias.endsWith('-1'),
        expire_in: null,
        target: l.url,
        visit_count: 3,
        created_at: `${l.created}T00:00:00.000Z`,
        link: `https://kutt.test/${l.alias}`,
      }));
      return { body: { limit: SIZE, skip, total: links.length, data } };
    },
    check: (link, source) => {
      expect(link.description).to.equal(source.title);
      expect(link.passwordHash).to.equal(null);
    },
  },
  {
    source: 'bitly',
    keyHeader: ['authorization', `Bearer ${KEY}`],
    handler: (links) => (url, base) => {
      if (url.pathname === '/v4/user') return { body: { login: 'me', default_group_guid: 'Bg1' } };
      expect(url.pathname).to.equal('/v4/groups/Bg1/bitlinks');
      const page = Number(url.searchParams.get('page') ?? 1);
      const { items, pages } = pageOf(links, page, SIZE);
      return {
        body: {
          links: items.map((l) => ({
            id: `bit.ly/h${l.alias}`,
            link: `https://bit.ly/h${l.alias}`,
            custom_bitlinks: [`https://bit.ly/${l.alias}`],
            long_url: l.url,
            title: l.title,
            created_at: `${l.created}T00:00:00+0000`,
            tags: [],
          })),
          pagination: {
            total: links.length,
            size: SIZE,
            next: page < pages ? `${base}/v4/groups/Bg1/bitlinks?size=50&page=${page + 1}` : '',
          },
        },
      };
    },
    check: (link, source) => {
      expect(link.createdAt.toISOString()).to.equal(`${source.created}T00:00:00.000Z`);
    },
  },
  {
    source: 'gempixel',
    keyHeader: ['authorization', `Bearer ${KEY}`],
    handler: (links) => (url) => {
      // A GemPixel without pixels, splash pages, overlays, campaigns or channels to show.
      if (url.pathname !== '/api/urls') return { status: 404, body: { error: 1 } };
      const page = Number(url.searchParams.get('page'));
      const { items, pages } = pageOf(links, page, SIZE);
      return {
        body: {
          error: '0',
          data: {
            result: links.length,
            perpage: SIZE,
            currentpage: page,
            nextpage: Math.min(page + 1, pages),
            maxpage: pages,
            urls: items.map((l, i) => ({
              id: 100 + i + (page - 1) * SIZE,
              alias: l.alias,
              shorturl: `https://gem.test/${l.alias}`,
              longurl: l.url,
              title: l.title,
              description: 'from gempixel',
              clicks: 1,
              date: `${l.created} 12:00:00`,
            })),
          },
        },
      };
    },
    check: (link, source) => {
      expect(link.description).to.equal('from gempixel');
      expect(link.createdAt.toISOString()).to.equal(`${source.created}T12:00:00.000Z`);
    },
  },
];

describe('imports: Shlink, Kutt, Bitly and GemPixel sources against local fakes', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  for (const c of cases) {
    describe(c.source, () => {
      let fake: FakeSource;
      let links: SourceLink[];
      before(async () => {
        links = sourceLinks(uniqueName(c.source.slice(0, 2)));
        // The second request meets a 429, the fourth a 503: both are ridden out.
        fake = await startFakeSource(c.handler(links), { tooManyAt: 2, failAt: 4 });
      });
      after(() => fake.close());

      it('imports every page, skips a taken alias, maps the fields, and a re-run brings nothing new', async () => {
        const { apiKey, user } = await createTestUser();
        const other = await createTestUser();
        const taken = links[4] as SourceLink;
        await createLink(app, other.apiKey, {
          url: 'https://example.com/theirs',
          custom: taken.alias,
        });
        const api = client(app.url, apiKey);
        const started = await api.post<{ id: number }>('/api/import', {
          source: c.source,
          url: fake.url,
          key: KEY,
        });
        expect(started.status, started.text).to.equal(200);
        const report = await finishedImport(app, apiKey, started.body.id);
        expect(report, JSON.stringify(report.errors)).to.deep.include({
          source: c.source,
          status: 'done',
          total: 7,
          imported: 6,
          skipped: 1,
          failed: 0,
        });
        expect(report.errors).to.deep.include({
          item: report.errors.find((e) => e.message.startsWith(`alias ${taken.alias}`))?.item ?? '',
          message: `alias ${taken.alias} is already taken: skipped`,
        });
        // The 429 (request 2) and the 503 (request 4) were met, and each request asked again.
        const paths = fake.requests.map((r) => r.path);
        expect(paths.length).to.be.at.least(5);
        expect(paths[2], 'asked again after the 429').to.equal(paths[1]);
        expect(paths[4], 'asked again after the 503').to.equal(paths[3]);
        const [header, value] = c.keyHeader;
        const real = fake.requests.filter((r) => r.headers[header] === value);
        expect(real.length, 'every request carries the key').to.equal(fake.requests.length);
        expect(
          fake.requests.some((r) => r.path.includes(KEY)),
          'key never in a URL',
        ).to.equal(false);

        const stored = await Link.find({ userId: user.id }).lean<LinkRecord[]>();
        expect(stored.map((l) => l.alias).sort()).to.deep.equal(
          links
            .filter((l) => l !== taken)
            .map((l) => l.alias)
            .sort(),
        );
        const first = links[0] as SourceLink;
        const link = stored.find((l) => l.alias === first.alias) as LinkRecord;
        expect(link.url).to.equal(first.url);
        if (c.source !== 'kutt') expect(link.title).to.equal(first.title);
        c.check(link, first);
        if (c.reported) {
          const expected = c.reported(first);
          const items = new Set(expected.map((e) => e.item));
          expect(report.errors.filter((e) => items.has(e.item))).to.deep.equal(expected);
        }
        const redirect = await visit(app, `/${first.alias}`);
        expect(redirect.status).to.equal(302);
        expect(redirect.headers.get('location')).to.equal(first.url);

        const again = await api.post<{ id: number }>('/api/import', {
          source: c.source,
          url: fake.url,
          key: KEY,
        });
        const rerun: ImportReport = await finishedImport(app, apiKey, again.body.id);
        expect(rerun).to.deep.include({ status: 'done', imported: 0, skipped: 7, failed: 0 });

        const theirs = await client(app.url, other.apiKey).get(`/api/import/${started.body.id}`);
        expect(theirs.status).to.equal(404);
        expect(theirs.body).to.deep.equal({
          error: 1,
          message: 'Import not found',
          code: 'not_found',
        });
        // The key is in no stored record.
        const job = await ImportJob.findOne({ id: started.body.id }).lean();
        expect(JSON.stringify(job)).to.not.include(KEY);
      });
    });
  }

  it('reports what Kutt cannot give back: a password', async () => {
    const { apiKey } = await createTestUser();
    const stem = uniqueName('kp');
    const kutt = await startFakeSource(() => ({
      body: {
        total: 1,
        data: [{ id: 'u1', address: stem, target: 'https://example.com/k', password: true }],
      },
    }));
    try {
      const started = await client(app.url, apiKey).post<{ id: number }>('/api/import', {
        source: 'kutt',
        url: kutt.url,
        key: KEY,
      });
      const report = await finishedImport(app, apiKey, started.body.id);
      expect(report.errors).to.deep.equal([
        {
          item: 'u1',
          message:
            'password not carried: Kutt cannot give it back; the link was imported without one',
        },
      ]);
    } finally {
      await kutt.close();
    }
  });

  it('fails the import on a wrong key, saying so, and removes the job holding the sealed key', async () => {
    const { apiKey } = await createTestUser();
    const fake = await startFakeSource(() => ({ status: 401, body: { error: 'unauthorized' } }));
    const redis = new Redis(app.config.redisUrl);
    try {
      const started = await client(app.url, apiKey).post<{ id: number }>('/api/import', {
        source: 'shlink',
        url: fake.url,
        key: KEY,
      });
      const report = await finishedImport(app, apiKey, started.body.id);
      expect(report).to.deep.include({ status: 'failed', imported: 0 });
      expect(report.errors).to.deep.equal([
        { item: '', message: '/rest/v3/short-urls answered HTTP 401 (is the key right?)' },
      ]);
      const jobKey = `${app.config.redisPrefix}bull:imports:import-${started.body.id}`;
      expect(await redis.exists(jobKey)).to.equal(0);
    } finally {
      redis.disconnect();
      await fake.close();
    }
  });
});

describe('imports: the key sealed into the job', () => {
  it('is unreadable without the secret key and read back with it', () => {
    const secret = Buffer.alloc(32, 7);
    const sealed = sealKey(KEY, secret);
    expect(sealed).to.not.include(KEY);
    expect(unsealKey(sealed, secret)).to.equal(KEY);
    expect(() => unsealKey(sealed, Buffer.alloc(32, 8))).to.throw();
  });
});

describe('imports: a GemPixel source with pixels, pages, campaigns and channels', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  it('brings the records over and keeps the links references to them', async () => {
    const stem = uniqueName('gr');
    const list = (key: string, items: unknown[]) => ({
      body: {
        error: '0',
        data: {
          result: items.length,
          perpage: 100,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          [key]: items,
        },
      },
    });
    const fake = await startFakeSource(
      (url) => {
        switch (url.pathname) {
          case '/api/pixels':
            return list('pixels', [
              {
                id: 31,
                type: 'fbpixel',
                name: 'FB',
                tag: '123456789012345',
                date: '2024-01-01 00:00:00',
              },
            ]);
          case '/api/splash':
            return list('splash', [{ id: 41, name: 'Wait page', date: '2024-01-01 00:00:00' }]);
          case '/api/overlay':
            return list('cta', [
              { id: 51, type: 'message', name: 'Banner', date: '2024-01-01 00:00:00' },
            ]);
          case '/api/campaigns':
            return list('campaigns', [
              {
                id: 61,
                name: 'Spring',
                public: true,
                rotator: `https://gem.test/r/${stem}`,
                list: 'https://gem.test/u/x/61',
              },
            ]);
          case '/api/channels':
            return list('channels', [
              { id: 71, name: 'Print', description: 'flyers', color: '#ff0000', starred: true },
            ]);
          case '/api/channel/71':
            return list('items', [
              { type: 'links', id: 2, title: 'B', preview: '', link: '', date: '2024-01-01' },
            ]);
          case '/api/urls':
            return list('urls', [
              {
                id: 1,
                alias: `${stem}-a`,
                shorturl: `https://gem.test/${stem}-a`,
                longurl: 'https://example.com/a',
                title: 'A',
                description: '',
                clicks: 0,
                date: '2024-01-02 00:00:00',
                type: 'splash',
                splash: 41,
                pixels: [31],
              },
              {
                id: 2,
                alias: `${stem}-b`,
                shorturl: `https://gem.test/${stem}-b`,
                longurl: 'https://example.com/b',
                title: 'B',
                description: '',
                clicks: 0,
                date: '2024-01-03 00:00:00',
              },
            ]);
          default:
            return { status: 404, body: { error: 1 } };
        }
      },
      { tooManyAt: 3, failAt: 6 },
    );
    try {
      const { apiKey, user } = await createTestUser();
      const started = await client(app.url, apiKey).post<{ id: number }>('/api/import', {
        source: 'gempixel',
        url: fake.url,
        key: KEY,
      });
      const report = await finishedImport(app, apiKey, started.body.id);
      expect(report, JSON.stringify(report.errors)).to.deep.include({
        status: 'done',
        total: 8,
        imported: 8,
        skipped: 0,
        failed: 0,
      });
      const pixel = await Pixel.findOne({ userId: user.id }).lean();
      const splash = await SplashPage.findOne({ userId: user.id }).lean();
      const campaign = await Campaign.findOne({ userId: user.id }).lean();
      const channel = await Channel.findOne({ userId: user.id }).lean();
      expect(pixel).to.include({ type: 'fbpixel', name: 'FB', tag: '123456789012345' });
      expect(campaign).to.include({ name: 'Spring', public: true, slug: stem });
      expect(channel).to.include({ name: 'Print', description: 'flyers', starred: true });
      const a = await Link.findOne({ userId: user.id, alias: `${stem}-a` }).lean<LinkRecord>();
      const b = await Link.findOne({ userId: user.id, alias: `${stem}-b` }).lean<LinkRecord>();
      expect(a).to.deep.include({ type: 'splash', splashId: splash?.id, pixelIds: [pixel?.id] });
      const items = await ChannelItem.find({ userId: user.id }).lean();
      expect(items.map((i) => [i.channelId, i.type, i.itemId])).to.deep.equal([
        [channel?.id, 'links', b?.id],
      ]);
      const page = await visit(app, `/${stem}-a`);
      expect(page.status).to.equal(200);
    } finally {
      await fake.close();
    }
  });
});
