import { expect } from 'chai';
import { formatsOf } from './support/qr';
import { client, DATE_TIME } from './support/http';
import {
  aliasOf,
  decodeImage,
  pixelAt,
  servePng,
  waitForRender,
  type QrDetails,
} from './support/qr';
import { PUBLIC_URL, useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';
import { QrImage } from '../src/qr-codes/qr-image.model';
import { drainVisits } from './support/visits';
import { assignToChannel, createChannel } from './support/channels';

const LINK = /^http:\/\/linkqr\.test\/qr\/[A-Za-z0-9]{8}$/;
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';

describe('QR codes', () => {
  const env = useQrEnvironment();

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
        const created = await env.create(user, { type, data, name: `my ${type}` });
        expect(created).to.deep.equal({ error: 0, id: created.id, link: created.link });
        expect(created.id).to.be.a('number');
        expect(created.link).to.match(LINK);
        const details = await waitForRender(env.app, user.apiKey, created.id);
        expect(details.status).to.equal('ready');
        const { res, bytes } = await env.image(created.link);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('image/png');
        // Embeddable with <img src> on any site, whatever helmet's same-origin default says.
        expect(res.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
        expect((await decodeImage(bytes)).text).to.equal(expected(aliasOf(created.link)));
      });
    }
  });

  it('draws the requested colours: background in the quiet zone, foreground in the finder', async () => {
    const user = await createTestUser();
    const { id, link } = await env.create(user, {
      type: 'text',
      data: 'colours',
      foreground: 'rgb(20, 40, 120)',
      background: 'rgb(250,240,200)',
      size: 300,
    });
    await waitForRender(env.app, user.apiKey, id);
    const { bytes } = await env.image(link);
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
      const value = logo.startsWith('/') ? `${env.logos.origin}${logo}` : logo;
      const { id, link } = await env.create(
        user,
        { type: 'text', data: 'logo', logo: value },
        env.openApp,
      );
      expect((await waitForRender(env.app, user.apiKey, id)).status).to.equal('ready');
      const { bytes } = await env.image(link);
      expect(await pixelAt(bytes, 256, 256)).to.deep.equal([220, 30, 30]);
      expect((await decodeImage(bytes)).text).to.equal('logo');
    });
  }

  it('serves the SVG at .svg and as the default format when asked to', async () => {
    const user = await createTestUser();
    const { id, link } = await env.create(user, { type: 'text', data: 'vector', format: 'svg' });
    await waitForRender(env.app, user.apiKey, id);
    for (const suffix of ['', '.svg']) {
      const { res, bytes } = await env.image(link, suffix);
      expect(res.headers.get('content-type')).to.equal('image/svg+xml');
      expect(bytes.toString()).to.match(/^<svg /);
      expect((await decodeImage(bytes)).text).to.equal('vector');
    }
    const png = await env.image(link, '.png');
    expect(png.res.headers.get('content-type')).to.equal('image/png');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const user = await createTestUser();
    const { id, link } = await env.create(user, { type: 'text', data: 'cache me' });
    await waitForRender(env.app, user.apiKey, id);
    const first = await env.image(link);
    const etag = first.res.headers.get('etag') as string;
    expect(etag).to.match(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.res.headers.get('cache-control')).to.equal('public, no-cache');
    // fetch() adds Cache-Control: no-cache to conditional requests; the origin still validates.
    const again = await env.image(link, '', { 'if-none-match': `"other", ${etag}` });
    expect(again.res.status).to.equal(304);
    expect(again.bytes.length).to.equal(0);
    const weak = await env.image(link, '', { 'if-none-match': `W/${etag}` });
    expect(weak.res.status).to.equal(304);
    const stale = await env.image(link, '', { 'if-none-match': '"other"' });
    expect(stale.res.status).to.equal(200);
  });

  it('says pending in details while rendering, ready once the image is served', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    env.logos.route('/held.png', (_req, res) => void held.then(() => servePng(env.red)(_req, res)));
    const user = await createTestUser();
    const { id, link } = await env.create(
      user,
      { type: 'text', data: 'later', logo: `${env.logos.origin}/held.png` },
      env.openApp,
    );
    const details = await client(env.app.url, user.apiKey).get<{ details: QrDetails }>(
      `/api/qr/${id}`,
    );
    expect(details.body.details.status).to.equal('pending');
    // 202 with Retry-After while still rendering: qr-image-wait.test.
    release();
    expect((await waitForRender(env.app, user.apiKey, id)).status).to.equal('ready');
    expect((await env.image(link)).res.status).to.equal(200);
  });

  describe('listing and reading', () => {
    it('lists the caller codes newest first with exactly the spec fields', async () => {
      const user = await createTestUser();
      const a = await env.create(user, { type: 'text', data: 'a', name: 'A' });
      const b = await env.create(user, { type: 'text', data: 'b' });
      await createTestUser().then((other) => env.create(other, { type: 'text', data: 'other' }));
      const res = await client(env.app.url, user.apiKey).get<{
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
      const first = await client(env.app.url, user.apiKey).get<{
        data: { qrs: Array<{ id: number }> };
      }>('/api/qr?limit=1');
      expect(first.body.data.qrs.map((q) => q.id)).to.deep.equal([b.id]);
    });

    it('answers one code with its details and the statistics object', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, { type: 'text', data: 'stats', name: 'Stats' });
      await waitForRender(env.app, user.apiKey, id);
      const res = await client(env.app.url, user.apiKey).get<{ details: QrDetails }>(
        `/api/qr/${id}`,
      );
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
          style: null,
          formats: formatsOf(link),
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
      const { id } = await env.create(owner, { type: 'text', data: 'mine' });
      const api = client(env.app.url, (await createTestUser()).apiKey);
      const notFound = { error: 1, message: 'QR code not found', code: 'not_found' };
      for (const res of [
        await api.get(`/api/qr/${id}`),
        await api.put(`/api/qr/${id}/update`, { data: 'x' }),
        await api.delete(`/api/qr/${id}/delete`),
      ]) {
        expect([res.status, res.body]).to.deep.equal([404, notFound]);
      }
    });
  });

  it('deletes a code with its images and scans, out of its channels; its addresses then answer 404', async () => {
    const user = await createTestUser();
    const api = client(env.app.url, user.apiKey);
    const { id, link } = await env.create(user, { type: 'link', data: 'https://example.com/' });
    await waitForRender(env.app, user.apiKey, id);
    await fetch(`${env.app.url}/s/${aliasOf(link)}`, {
      redirect: 'manual',
      headers: { 'user-agent': FIREFOX_LINUX },
    });
    await drainVisits(env.app);
    expect((await env.app.deps.visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(1);
    const channel = await createChannel(env.app, user.apiKey);
    await assignToChannel(env.app, user.apiKey, channel.id, 'qr', id);
    const res = await api.delete(`/api/qr/${id}/delete`);
    expect([res.status, res.body]).to.deep.equal([
      200,
      { error: 0, message: 'QR code has been successfully deleted.' },
    ]);
    expect(await QrImage.countDocuments({ qrId: id })).to.equal(0);
    expect((await env.app.deps.visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(0);
    const items = await api.get<{ data: { result: number } }>(`/api/channel/${channel.id}`);
    expect(items.body.data.result).to.equal(0);
    expect((await env.image(link)).res.status).to.equal(404);
    expect(
      (await fetch(`${env.app.url}/s/${aliasOf(link)}`, { redirect: 'manual' })).status,
    ).to.equal(404);
    expect((await api.get(`/api/qr/${id}`)).status).to.equal(404);
  });
});
