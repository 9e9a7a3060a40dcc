import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { addOverlay, addPixel, addSplash, FB_TAG } from './support/behaviour';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';
import { drainVisits } from './support/visits';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const CRAWLER = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>';

describe('what visitors meet on links with behaviour', () => {
  let app: TestApp;
  let apiKey: string;
  before(async () => {
    app = await startTestApp({ COUNTRY_HEADER: 'cf-ipcountry' });
    apiKey = (await createTestUser()).apiKey;
  });
  after(() => app.close());

  const link = (body: Record<string, unknown>) =>
    createLink(app, apiKey, { url: 'https://example.com/landing', ...body });
  const as = (headers: Record<string, string>) => ({
    headers: { 'user-agent': WINDOWS, ...headers },
  });

  async function clicksOf(id: number): Promise<number> {
    await drainVisits(app);
    const res = await client(app.url, apiKey).get<{ data: { clicks: number } }>(`/api/url/${id}`);
    return res.body.data.clicks;
  }

  function expectStrictPage(res: Awaited<ReturnType<typeof visit>>) {
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.match(/^default-src 'none'/);
    expect(csp).not.to.include('unsafe-inline');
    expect(csp).not.to.include('unsafe-eval');
    return csp;
  }

  describe('parameters', () => {
    it('are appended to the target, keeping its own query, values and fragment, on the bare 302', async () => {
      const { alias } = await link({
        url: 'https://example.com/p?x=a%20b&utm_source=own#top',
        parameters: [
          { name: 'utm_source', value: 'news' },
          { name: 'utm_medium', value: 'e mail' },
        ],
      });
      const res = await visit(app, `/${alias}`, as({}));
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal(
        'https://example.com/p?x=a%20b&utm_source=own&utm_medium=e%20mail#top',
      );
      expect(res.text).to.equal('');
    });
  });

  describe('targeting', () => {
    it('sends a visitor from a listed country to its link, by ISO code or name', async () => {
      const { alias } = await link({
        geotarget: [
          { location: 'CA', link: 'https://example.ca/' },
          { location: 'Germany', link: 'https://example.de/' },
        ],
      });
      const ca = await visit(app, `/${alias}`, as({ 'cf-ipcountry': 'CA' }));
      expect(ca.status).to.equal(302);
      expect(ca.headers.get('location')).to.equal('https://example.ca/');
      const de = await visit(app, `/${alias}`, as({ 'cf-ipcountry': 'de' }));
      expect(de.headers.get('location')).to.equal('https://example.de/');
      const fr = await visit(app, `/${alias}`, as({ 'cf-ipcountry': 'FR' }));
      expect(fr.headers.get('location')).to.equal('https://example.com/landing');
    });

    it('takes the first matching rule, and country rules before device and language ones', async () => {
      const { alias } = await link({
        geotarget: [
          { location: 'Canada', link: 'https://first.example/' },
          { location: 'CA', link: 'https://second.example/' },
        ],
        devicetarget: [
          { device: 'iPhone', link: 'https://iphone.example/' },
          { device: 'iPhone', link: 'https://iphone2.example/' },
        ],
        languagetarget: [{ language: 'fr', link: 'https://fr.example/' }],
      });
      const go = async (headers: Record<string, string>) =>
        (await visit(app, `/${alias}`, as(headers))).headers.get('location');
      expect(await go({ 'cf-ipcountry': 'CA', 'user-agent': IPHONE })).to.equal(
        'https://first.example/',
      );
      expect(
        await go({ 'cf-ipcountry': 'US', 'user-agent': IPHONE, 'accept-language': 'fr' }),
      ).to.equal('https://iphone.example/');
      expect(await go({ 'cf-ipcountry': 'US', 'accept-language': 'fr' })).to.equal(
        'https://fr.example/',
      );
    });

    it('matches devices by User-Agent and languages by the most preferred one', async () => {
      const { alias } = await link({
        devicetarget: [
          { device: 'Android', link: 'https://android.example/' },
          { device: 'iPhone', link: 'https://iphone.example/' },
        ],
        languagetarget: [
          { language: 'de', link: 'https://de.example/' },
          { language: 'fr', link: 'https://fr.example/' },
        ],
      });
      const go = async (headers: Record<string, string>) =>
        (await visit(app, `/${alias}`, as(headers))).headers.get('location');
      expect(await go({ 'user-agent': ANDROID })).to.equal('https://android.example/');
      expect(await go({ 'user-agent': IPHONE })).to.equal('https://iphone.example/');
      expect(await go({ 'accept-language': 'en;q=0.5, fr-CA;q=0.9, de;q=0.1' })).to.equal(
        'https://fr.example/',
      );
      expect(await go({ 'accept-language': 'en-GB,en;q=0.9' })).to.equal(
        'https://example.com/landing',
      );
      expect(await go({})).to.equal('https://example.com/landing');
    });

    it('adds the parameters to a rule link too', async () => {
      const { alias } = await link({
        geotarget: [{ location: 'CA', link: 'https://example.ca/?lang=en' }],
        parameters: [{ name: 'utm_campaign', value: 'x' }],
      });
      const res = await visit(app, `/${alias}`, as({ 'cf-ipcountry': 'CA' }));
      expect(res.headers.get('location')).to.equal('https://example.ca/?lang=en&utm_campaign=x');
    });
  });

  describe('pixels', () => {
    it('answers a page that loads the network snippet and sends the visitor on, counted once', async () => {
      const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
      const ga = await addPixel(app, apiKey, { type: 'gapixel', tag: 'G-AB12CD34EF' });
      const created = await link({ pixels: [pixel, ga] });
      const res = await visit(app, `/${created.alias}`, as({}));
      const csp = expectStrictPage(res);
      expect(csp).to.match(
        /script-src 'sha256-[^']+' https:\/\/connect\.facebook\.net https:\/\/www\.googletagmanager\.com;/,
      );
      expect(csp).to.include("img-src 'self' data: https://www.facebook.com");
      expect(csp).to.include("connect-src 'self' https://www.facebook.com");
      expect(res.text).to.include(
        '<noscript><meta http-equiv="refresh" content="0;url=https://example.com/landing"></noscript>',
      );
      expect(res.text).to.include('"https://connect.facebook.net/en_US/fbevents.js"');
      expect(res.text).to.include(
        `"https://www.facebook.com/tr?id=${FB_TAG}&ev=PageView&noscript=1"`,
      );
      expect(res.text).to.include('"https://www.googletagmanager.com/gtag/js?id=G-AB12CD34EF"');
      expect(res.text).to.include('"wait":1500');
      expect(await clicksOf(created.id)).to.equal(1);
    });

    it('gives a pixel without a well-known snippet the generic beacon', async () => {
      const pixel = await addPixel(app, apiKey, {
        type: 'retargetpixel',
        tag: 'https://beacon.example.net/p?id=42',
      });
      const { alias } = await link({ pixels: [pixel] });
      const res = await visit(app, `/${alias}`, as({}));
      const csp = expectStrictPage(res);
      expect(csp).to.include("img-src 'self' data: https://beacon.example.net");
      expect(csp).to.match(/script-src 'sha256-[^' ]+';/);
      expect(res.text).to.include(
        '"setup":"generic","scripts":[],"images":["https://beacon.example.net/p?id=42"]',
      );
    });

    it('fires an edited pixel’s new tag at once, and counts no click for HEAD', async () => {
      const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
      const created = await link({ pixels: [pixel] });
      expect((await visit(app, `/${created.alias}`, as({}))).text).to.include(FB_TAG);
      const edit = await client(app.url, apiKey).put(`/api/pixel/${pixel}/update`, {
        tag: '999999999999',
      });
      expect(edit.status).to.equal(200);
      const res = await visit(app, `/${created.alias}`, { ...as({}), method: 'HEAD' });
      expect(res.status).to.equal(200);
      expect((await visit(app, `/${created.alias}`, as({}))).text).to.include('id=999999999999');
      expect(await clicksOf(created.id)).to.equal(2);
    });

    it('stops firing a deleted pixel at once', async () => {
      const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
      const { alias } = await link({ pixels: [pixel] });
      expect((await visit(app, `/${alias}`, as({}))).status).to.equal(200);
      const del = await client(app.url, apiKey).delete(`/api/pixel/${pixel}/delete`);
      expect(del.status).to.equal(200);
      const res = await visit(app, `/${alias}`, as({}));
      expect(res.status).to.equal(302);
    });
  });

  describe('splash', () => {
    it('shows the plain default splash with a countdown, a skip link and a noscript refresh', async () => {
      const created = await link({ type: 'splash' });
      const res = await visit(app, `/${created.alias}`, as({}));
      expectStrictPage(res);
      expect(res.text).to.include('<h1>You are being redirected</h1>');
      expect(res.text).to.include('<span id="linkqr-count">5</span>');
      expect(res.text).to.include(
        '<a id="linkqr-skip" href="https://example.com/landing">Skip</a>',
      );
      expect(res.text).to.include('content="5;url=https://example.com/landing"');
      expect(await clicksOf(created.id)).to.equal(1);
    });

    it('shows the owner’s page, and its edits at once', async () => {
      const splash = await addSplash(app, apiKey, {
        title: 'Big sale',
        message: 'Everything\nhalf price',
        image: 'https://cdn.example.org/sale.png',
        link: 'https://shop.example/sale',
        button: 'Shop now',
        counter: 3,
      });
      const { alias } = await link({ type: splash });
      let res = await visit(app, `/${alias}`, as({}));
      const csp = expectStrictPage(res);
      expect(csp).to.include('https://cdn.example.org');
      expect(res.text).to.include('<h1>Big sale</h1>');
      expect(res.text).to.include(
        '<img class="hero" src="https://cdn.example.org/sale.png" alt="">',
      );
      expect(res.text).to.include(
        '<a class="cta" href="https://shop.example/sale" rel="noopener">Shop now</a>',
      );
      expect(res.text).to.include('<span id="linkqr-count">3</span>');
      await client(app.url, apiKey).put(`/api/splash/${splash}/update`, { title: 'Bigger sale' });
      res = await visit(app, `/${alias}`, as({}));
      expect(res.text).to.include('<h1>Bigger sale</h1>');
    });
  });

  describe('frame and overlay', () => {
    it('frames the target in a sandbox under a bar with the title and a direct link', async () => {
      const { alias } = await link({ type: 'frame', title: 'Docs' });
      const res = await visit(app, `/${alias}`, as({}));
      const csp = expectStrictPage(res);
      expect(csp).to.include('frame-src https://example.com');
      expect(res.text).to.include('<strong>Docs</strong>');
      expect(res.text).to.include(
        '<iframe src="https://example.com/landing" sandbox="allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-same-origin"',
      );
      expect(res.text).to.include(
        '<a href="https://example.com/landing" target="_top" rel="noopener">Open example.com directly</a>',
      );
    });

    it('puts a message overlay with its colours and position on the framed target', async () => {
      const overlay = await addOverlay(app, apiKey, {
        message: 'Join us',
        button: 'Sign up',
        link: 'https://example.com/join',
        color: '#112233',
        background: '#AABBCC',
        position: 'top-left',
      });
      const { alias } = await link({ type: `overlay-${overlay}` });
      const res = await visit(app, `/${alias}`, as({}));
      expectStrictPage(res);
      expect(res.text).to.include(
        '.overlay{color:#112233;background:#AABBCC;left:1rem;top:3.5rem}',
      );
      expect(res.text).to.include(
        '<p class="msg">Join us</p><a href="https://example.com/join" target="_top" rel="noopener">Sign up</a>',
      );
    });

    it('turns the links of a deleted overlay into direct ones and says so', async () => {
      const overlay = await addOverlay(app, apiKey);
      const a = await link({ type: 'overlay', overlay });
      const b = await link({ type: `overlay-${overlay}` });
      expect((await visit(app, `/${a.alias}`, as({}))).status).to.equal(200);
      const del = await client(app.url, apiKey).delete(`/api/overlay/${overlay}/delete`);
      expect(del.body).to.deep.equal({
        error: 0,
        message:
          'Overlay has been successfully deleted. 2 links that used it are now direct links.',
      });
      for (const l of [a, b]) {
        const res = await visit(app, `/${l.alias}`, as({}));
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal('https://example.com/landing');
      }
    });
  });

  describe('link previews', () => {
    it('gives crawlers Open Graph and Twitter tags without counting a click; people get the link', async () => {
      const created = await link({
        type: 'splash',
        metatitle: 'Our launch',
        metadescription: 'All about it',
        metaimage: 'https://img.example.com/card.png',
      });
      const bot = await visit(app, `/${created.alias}`, { headers: { 'user-agent': CRAWLER } });
      expectStrictPage(bot);
      expect(bot.text).to.include(
        `<meta property="og:url" content="http://linkqr.test/${created.alias}">`,
      );
      expect(bot.text).to.include('<meta property="og:title" content="Our launch">');
      expect(bot.text).to.include('<meta property="og:description" content="All about it">');
      expect(bot.text).to.include(
        '<meta property="og:image" content="https://img.example.com/card.png">',
      );
      expect(bot.text).to.include('<meta name="twitter:card" content="summary_large_image">');
      expect(bot.text).not.to.include('example.com/landing');
      expect(bot.text).not.to.include('<script');
      expect(await clicksOf(created.id)).to.equal(0);
      const person = await visit(app, `/${created.alias}`, as({}));
      expect(person.text).to.include('linkqr-count');
      expect(await clicksOf(created.id)).to.equal(1);
    });

    it('leaves crawlers on the normal redirect when the link has no preview tags', async () => {
      const { alias } = await link({ parameters: [{ name: 'a', value: '1' }] });
      const bot = await visit(app, `/${alias}`, { headers: { 'user-agent': CRAWLER } });
      expect(bot.status).to.equal(302);
    });

    it('shows a protected link’s preview to crawlers but never its target', async () => {
      const { alias } = await link({ password: 'pw-secret', metatitle: 'Secret thing' });
      const bot = await visit(app, `/${alias}`, { headers: { 'user-agent': CRAWLER } });
      expect(bot.status).to.equal(200);
      expect(bot.text).to.include('content="Secret thing"');
      expect(bot.text).not.to.include('example.com');
      const person = await visit(app, `/${alias}`, as({}));
      expect(person.text).to.include('This link is protected');
    });
  });

  describe('escaping', () => {
    it('escapes hostile titles, messages and preview tags on every page', async () => {
      const splash = await addSplash(app, apiKey, {
        name: HOSTILE,
        title: HOSTILE,
        message: HOSTILE,
        button: HOSTILE,
        link: 'https://example.com/',
      });
      const overlay = await addOverlay(app, apiKey, {
        name: HOSTILE,
        message: HOSTILE,
        button: HOSTILE,
        link: 'https://example.com/',
      });
      const contact = await addOverlay(app, apiKey, {
        type: 'contact',
        message: HOSTILE,
        button: HOSTILE,
      });
      const pages = [
        await link({ type: splash, title: HOSTILE }),
        await link({ type: `overlay-${overlay}`, title: HOSTILE }),
        await link({ type: `overlay-${contact}`, title: HOSTILE }),
        await link({ type: 'frame', title: HOSTILE }),
      ];
      for (const p of pages) {
        const res = await visit(app, `/${p.alias}`, as({}));
        expect(res.status).to.equal(200);
        expect(res.text).not.to.include('<script>alert');
        expect(res.text).not.to.include('<img src=x');
        expect(res.text).to.include('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
      }
      const preview = await link({ metatitle: HOSTILE, metadescription: HOSTILE });
      const bot = await visit(app, `/${preview.alias}`, { headers: { 'user-agent': CRAWLER } });
      expect(bot.text).not.to.include('<script>alert');
      expect(bot.text).to.include('content="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    });
  });

  describe('on a branded domain', () => {
    it('serves the pages there, never giving a target on that origin script access to it', async () => {
      const domain = uniqueDomain();
      const claim = await client(app.url, apiKey).post('/api/domain/add', { domain });
      expect(claim.status, claim.text).to.equal(200);
      const host = new URL(domain).hostname;
      const splash = await link({ domain, type: 'splash' });
      const page = await requestWithHost(app.url, `/${splash.alias}`, host);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('<h1>You are being redirected</h1>');
      const own = await link({ domain, type: 'frame', url: `${domain}/elsewhere` });
      const frame = await requestWithHost(app.url, `/${own.alias}`, host);
      expect(frame.status).to.equal(200);
      expect(frame.text).to.include(
        'sandbox="allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox"',
      );
    });
  });

  describe('through the campaign rotator', () => {
    it('sends the visitor to the short link when the link has pages, else to its URL with parameters', async () => {
      const campaign = await createCampaign(app, apiKey, { name: 'c', slug: uniqueName('slug') });
      const splashLink = await link({ type: 'splash' });
      await assignToCampaign(app, apiKey, campaign.id, splashLink.id);
      const first = await visit(app, new URL(campaign.rotator as string).pathname, as({}));
      expect(first.status).to.equal(302);
      expect(first.headers.get('location')).to.equal(splashLink.shorturl);

      const other = await createCampaign(app, apiKey, { name: 'd', slug: uniqueName('slug') });
      const plain = await link({ parameters: [{ name: 'utm_source', value: 'rotator' }] });
      await assignToCampaign(app, apiKey, other.id, plain.id);
      const res = await visit(app, new URL(other.rotator as string).pathname, as({}));
      expect(res.headers.get('location')).to.equal(
        'https://example.com/landing?utm_source=rotator',
      );
    });
  });
});
