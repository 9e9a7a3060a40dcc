import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { addOverlay, addPixel, addSplash, FB_TAG } from './support/behaviour';
import { client } from './support/http';
import { createLink, DIRECT_LINK_FIELDS } from './support/links';
import { createTestUser } from './support/users';

interface Details {
  details: Record<string, unknown>;
}

describe('link behaviour fields on url/add and url/:id/update', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function details(apiKey: string, id: number) {
    const res = await client(app.url, apiKey).get<Details>(`/api/url/${id}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.details;
  }

  it('stores every field, normalised, and returns it in details and list items', async () => {
    const { apiKey } = await createTestUser();
    const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
    const splash = await addSplash(app, apiKey);
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/',
      type: 'splash',
      splash,
      pixels: [pixel],
      geotarget: [
        { location: 'ca', link: 'https://example.ca/' },
        { location: 'united kingdom', link: 'https://example.co.uk/' },
      ],
      devicetarget: [{ device: 'iphone', link: 'https://example.com/ios' }],
      languagetarget: [{ language: 'FR', link: 'https://example.fr/' }],
      parameters: [
        { name: 'utm_source', value: 'news' },
        { name: 'n', value: 3 },
      ],
      metatitle: ' Title ',
      metadescription: 'About it',
      metaimage: 'https://img.example.com/a.png',
    });
    const expected = {
      type: 'splash',
      splash,
      overlay: null,
      pixels: [pixel],
      geotarget: [
        { location: 'Canada', link: 'https://example.ca/' },
        { location: 'United Kingdom', link: 'https://example.co.uk/' },
      ],
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }],
      languagetarget: [{ language: 'fr', link: 'https://example.fr/' }],
      parameters: [
        { name: 'utm_source', value: 'news' },
        { name: 'n', value: '3' },
      ],
      metatitle: 'Title',
      metadescription: 'About it',
      metaimage: 'https://img.example.com/a.png',
    };
    expect(await details(apiKey, link.id)).to.deep.include({
      ...expected,
      location: { Canada: 'https://example.ca/', 'United Kingdom': 'https://example.co.uk/' },
      device: { iphone: 'https://example.com/ios' },
    });
    const list = await client(app.url, apiKey).get<{ data: { urls: unknown[] } }>('/api/urls');
    expect(list.body.data.urls[0]).to.deep.include(expected);
  });

  describe('the forms of type GemPixel documents', () => {
    it('takes a number (or a string of digits) as the id of a custom splash page', async () => {
      const { apiKey } = await createTestUser();
      const splash = await addSplash(app, apiKey);
      const a = await createLink(app, apiKey, { url: 'https://example.com/', type: splash });
      const b = await createLink(app, apiKey, {
        url: 'https://example.com/',
        type: String(splash),
      });
      for (const id of [a.id, b.id])
        expect(await details(apiKey, id)).to.deep.include({
          type: 'splash',
          splash,
          overlay: null,
        });
    });

    it('takes overlay-<id> as a CTA overlay', async () => {
      const { apiKey } = await createTestUser();
      const overlay = await addOverlay(app, apiKey);
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        type: `overlay-${overlay}`,
      });
      expect(await details(apiKey, link.id)).to.deep.include({
        type: 'overlay',
        overlay,
        splash: null,
      });
    });

    it('takes the words in any case; splash without an id is the default splash', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/', type: 'Splash' });
      expect(await details(apiKey, link.id)).to.deep.include({ type: 'splash', splash: null });
      const frame = await createLink(app, apiKey, { url: 'https://example.com/', type: 'frame' });
      expect(await details(apiKey, frame.id)).to.deep.include({ type: 'frame' });
    });
  });

  describe('updates', () => {
    it('changes only what is sent; null and [] clear; direct drops the splash page', async () => {
      const { apiKey } = await createTestUser();
      const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
      const splash = await addSplash(app, apiKey);
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        type: splash,
        pixels: [pixel],
        parameters: [{ name: 'a', value: '1' }],
      });
      const api = client(app.url, apiKey);
      let res = await api.put(`/api/url/${link.id}/update`, { metatitle: 'T' });
      expect(res.status, res.text).to.equal(200);
      expect(await details(apiKey, link.id)).to.deep.include({
        type: 'splash',
        splash,
        pixels: [pixel],
        metatitle: 'T',
      });
      res = await api.put(`/api/url/${link.id}/update`, {
        type: 'direct',
        pixels: null,
        parameters: [],
      });
      expect(res.status, res.text).to.equal(200);
      expect(await details(apiKey, link.id)).to.deep.include({
        ...DIRECT_LINK_FIELDS,
        metatitle: 'T',
      });
    });

    it('sending overlay alone makes the link an overlay link', async () => {
      const { apiKey } = await createTestUser();
      const overlay = await addOverlay(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const res = await client(app.url, apiKey).put(`/api/url/${link.id}/update`, { overlay });
      expect(res.status, res.text).to.equal(200);
      expect(await details(apiKey, link.id)).to.deep.include({ type: 'overlay', overlay });
    });
  });

  describe('refusals', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'an unknown type',
        { type: 'popup' },
        'type must be direct, frame, splash, overlay, a splash page id or overlay-<id>',
      ],
      [
        'type overlay without an overlay',
        { type: 'overlay' },
        'overlay is required with type overlay',
      ],
      [
        'an overlay on a frame link',
        { type: 'frame', overlay: 1 },
        'overlay applies only to links of type overlay',
      ],
      [
        'splash and overlay together',
        { splash: 1, overlay: 2 },
        'splash and overlay cannot both be set: a link has one type',
      ],
      ['pixels that are not ids', { pixels: ['x'] }, 'pixels[0] must be a number'],
      ['a repeated pixel', { pixels: [1, 1] }, 'pixels[1] contains a duplicate value'],
      [
        'an unknown country',
        { geotarget: [{ location: 'Atlantis', link: 'https://example.com/' }] },
        'location must be a country name or ISO 3166 code',
      ],
      [
        'an unknown device',
        { devicetarget: [{ device: 'Toaster', link: 'https://example.com/' }] },
        'device must be one of iPhone, iPad, Android, Windows Phone, Windows, Mac, Linux, Chrome OS, Blackberry',
      ],
      [
        'an unknown language',
        { languagetarget: [{ language: 'zz', link: 'https://example.com/' }] },
        'language must be an ISO 639 language code',
      ],
      [
        'a rule without a link',
        { geotarget: [{ location: 'CA' }] },
        'geotarget[0].link is required',
      ],
      [
        'a rule link that is not http(s)',
        { devicetarget: [{ device: 'Mac', link: 'javascript:alert(1)' }] },
        'devicetarget[0].link must be an http or https URL',
      ],
      [
        'a parameter name with &',
        { parameters: [{ name: 'a&b', value: '1' }] },
        'parameters[0].name must not contain &, =, # or control characters',
      ],
      [
        'a metaimage that is not a URL',
        { metaimage: 'javascript:x' },
        'metaimage must be an http or https URL',
      ],
      [
        'a metatitle with a control character',
        { metatitle: 'a\u0007' },
        'metatitle must not contain control characters',
      ],
    ];
    for (const [what, extra, message] of cases) {
      it(`answers 422 for ${what}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/url/add', {
          url: 'https://example.com/',
          ...extra,
        });
        expect(res.status, res.text).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, code: 'validation_failed', message });
        expect(res.body.field, 'the field named').to.be.a('string');
      });
    }
  });

  describe('isolation: another user’s pixel, splash page or overlay is a 422 naming the field', () => {
    it('refuses them on create and on update, and changes nothing', async () => {
      const owner = await createTestUser();
      const other = await createTestUser();
      const pixel = await addPixel(app, owner.apiKey, { type: 'fbpixel', tag: FB_TAG });
      const splash = await addSplash(app, owner.apiKey);
      const overlay = await addOverlay(app, owner.apiKey);
      const api = client(app.url, other.apiKey);
      const attempts: Array<[Record<string, unknown>, string]> = [
        [{ pixels: [pixel] }, 'pixels must name pixels of yours'],
        [{ type: splash }, 'splash must name a splash page of yours'],
        [{ type: 'splash', splash }, 'splash must name a splash page of yours'],
        [{ type: `overlay-${overlay}` }, 'overlay must name a CTA overlay of yours'],
        [{ pixels: [999999999] }, 'pixels must name pixels of yours'],
      ];
      const mine = await createLink(app, other.apiKey, { url: 'https://example.com/' });
      for (const [body, message] of attempts) {
        const add = await api.post('/api/url/add', { url: 'https://example.com/', ...body });
        expect(add.status, JSON.stringify(body)).to.equal(422);
        const field = message.split(' ')[0];
        expect(add.body).to.deep.equal({ error: 1, code: 'validation_failed', field, message });
        const update = await api.put(`/api/url/${mine.id}/update`, body);
        expect(update.status).to.equal(422);
        expect(update.body).to.deep.equal({ error: 1, code: 'validation_failed', field, message });
      }
      expect(await details(other.apiKey, mine.id)).to.deep.include(DIRECT_LINK_FIELDS);
    });
  });
});
