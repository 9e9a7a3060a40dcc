import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn, TEST_PASSWORD, DashboardClient } from './support/dashboard';
import { client, type ListBody } from './support/http';
import { createLink, visit } from './support/links';
import { solidLogo } from './support/qr';
import type { TestUser } from './support/users';
import { drainVisits } from './support/visits';

const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

interface LinkItem {
  id: number;
  alias: string;
  longurl: string;
  title: string;
  clicks: number;
}

describe('dashboard API (/app/api)', () => {
  let app: TestApp;
  let user: TestUser;
  let dash: DashboardClient;

  before(async () => {
    const logoDir = await mkdtemp(path.join(tmpdir(), 'linkqr-dash-logos-'));
    app = await startTestApp({ LOGO_DIR: logoDir });
    user = await createDashboardUser();
    dash = await signedIn(app.url, user);
  });
  after(() => app.close());

  it('answers 401 without a session', async () => {
    const res = await client(app.url).get('/app/api/account');
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.include({ error: 1 });
  });

  it('acts as the signed-in user through the API routes', async () => {
    const res = await dash.api('GET', '/account');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ error: 0 });
    expect((res.body.data as { email: string }).email).to.equal(user.user.email);
  });

  it('refuses a state-changing request without the CSRF token (403) and changes nothing', async () => {
    const res = await dash.api('POST', '/url/add', { url: 'https://example.com/csrf' }, false);
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.include({
      error: 1,
      message: 'Missing or invalid CSRF token: reload the page and try again',
    });
    const wrong = await dash.send('/app/api/url/add', {
      method: 'POST',
      body: { url: 'https://example.com/csrf' },
      headers: { 'x-csrf-token': 'not-the-token' },
    });
    expect(wrong.status).to.equal(403);
    const list = await client(app.url, user.apiKey).get<ListBody<'urls', LinkItem>>('/api/urls');
    expect(list.body.data.urls.map((l) => l.longurl)).not.to.include('https://example.com/csrf');
  });

  it('gives the API’s own validation errors', async () => {
    const res = await dash.api('POST', '/url/add', { url: 'ftp://example.com' });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({ error: 1, message: 'url must be an http or https URL' });
  });

  it('never reaches another user’s records', async () => {
    const other = await createDashboardUser();
    const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/theirs' });
    expect((await dash.api('GET', `/url/${theirs.id}`)).status).to.equal(404);
    expect((await dash.api('DELETE', `/url/${theirs.id}/delete`)).status).to.equal(404);
    const page = await dash.send(`/app/links/${theirs.id}`);
    expect(page.status).to.equal(404);
    expect(page.text).to.include('Link not found');
  });

  it('reserves the alias app, where the dashboard lives', async () => {
    const res = await client(app.url, user.apiKey).post('/api/url/add', {
      url: 'https://example.com/shadowed',
      custom: 'app',
    });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({ error: 1, message: 'alias app is reserved' });
  });

  describe('with a small plan', () => {
    let small: TestApp;
    before(async () => {
      small = await startTestApp({ PLAN_RATE_LIMITS: JSON.stringify({ tiny: 3 }) });
    });
    after(() => small.close());

    it('counts the session and the API key in one per-user limit', async () => {
      const owner = await createDashboardUser({ plan: 'tiny' });
      const session = await signedIn(small.url, owner);
      const api = client(small.url, owner.apiKey);
      expect((await api.get('/api/account')).status).to.equal(200);
      expect((await api.get('/api/account')).status).to.equal(200);
      expect((await session.api('GET', '/account')).status).to.equal(200);
      const over = await session.api('GET', '/account');
      expect(over.status).to.equal(429);
      expect(over.body).to.deep.include({ error: 1 });
      expect((await api.get('/api/account')).status).to.equal(429);
    });
  });

  describe('link search', () => {
    it('finds links by alias, URL or title, and sorts by clicks', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const stem = owner.user.username;
      const quiet = await createLink(app, owner.apiKey, { url: `https://example.com/${stem}/a` });
      const busy = await createLink(app, owner.apiKey, {
        url: 'https://example.org/b',
        title: `Busy ${stem}`,
      });
      await createLink(app, owner.apiKey, { url: 'https://example.net/unrelated' });
      for (let i = 0; i < 2; i += 1) {
        await visit(app, `/${busy.alias}`, { headers: { 'user-agent': CHROME_UA } });
      }
      await drainVisits(app);

      const byDate = await session.api<ListBody<'urls', LinkItem>>(
        'GET',
        `/dashboard/links?q=${stem}`,
      );
      expect(byDate.status).to.equal(200);
      expect(byDate.body.data.urls.map((l) => l.id)).to.deep.equal([busy.id, quiet.id]);
      expect(byDate.body.data.result).to.equal(2);

      const byClicks = await session.api<ListBody<'urls', LinkItem>>(
        'GET',
        '/dashboard/links?sort=clicks&limit=1',
      );
      expect(byClicks.body.data.urls[0]).to.deep.include({ id: busy.id, clicks: 2 });
      expect(byClicks.body.data).to.deep.include({ result: 3, maxpage: 3 });
    });

    it('treats the search text literally', async () => {
      const res = await dash.api<ListBody<'urls', LinkItem>>('GET', '/dashboard/links?q=.*');
      expect(res.status).to.equal(200);
      expect(res.body.data.urls).to.deep.equal([]);
    });

    it('refuses an unknown sort (400)', async () => {
      const res = await dash.api('GET', '/dashboard/links?sort=name');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ error: 1 });
    });
  });

  describe('clicks over time', () => {
    it('counts the clicks of each day, zeros included, without bots', async () => {
      const link = await createLink(app, user.apiKey, { url: 'https://example.com/series' });
      for (let i = 0; i < 3; i += 1) {
        await visit(app, `/${link.alias}`, { headers: { 'user-agent': CHROME_UA } });
      }
      await visit(app, `/${link.alias}`, { headers: { 'user-agent': 'Googlebot/2.1' } });
      await drainVisits(app);
      const to = new Date();
      const from = new Date(to.getTime() - 6 * 86_400_000);
      const res = await dash.api<{ data: { series: Array<{ t: string; clicks: number }> } }>(
        'GET',
        `/url/${link.id}/stats?interval=day&from=${from.toISOString()}&to=${to.toISOString()}`,
      );
      expect(res.status).to.equal(200);
      const { series } = res.body.data;
      expect(series).to.have.length(7);
      // `t` starts with the bucket's date (the statistics API of issue 12 adds the time).
      expect(series.at(-1)?.t.slice(0, 10)).to.equal(to.toISOString().slice(0, 10));
      expect(series.at(-1)?.clicks).to.equal(3);
      expect(series.slice(0, 6).every((p) => p.clicks === 0)).to.equal(true);
    });

    it('answers 404 for another user’s link and 422 for a reversed range', async () => {
      const other = await createDashboardUser();
      const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/x' });
      expect((await dash.api('GET', `/url/${theirs.id}/stats`)).status).to.equal(404);
      const mine = await createLink(app, user.apiKey, { url: 'https://example.com/y' });
      const res = await dash.api(
        'GET',
        `/url/${mine.id}/stats?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z`,
      );
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'from must be before to' });
    });
  });

  describe('QR preview and logo upload', () => {
    it('previews a code as SVG in its colours', async () => {
      const res = await dash.api<{ svg: string }>('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'hello',
        foreground: 'rgb(10,20,120)',
        background: 'rgb(255,255,255)',
      });
      expect(res.status).to.equal(200);
      expect(res.body.svg).to.match(/^<svg/);
      expect(res.body.svg).to.include('rgb(10,20,120)');
    });

    it('previews a style as the worker draws it: gradient, frame, taller for a banner', async () => {
      const res = await dash.api<{ svg: string }>('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'styled',
        style: {
          dots: 'dots',
          corners: { frame: { shape: 'circle' } },
          gradient: { type: 'radial', colors: ['#0a1478', '#5a0a3c'] },
          frame: { type: 'banner-bottom', text: 'SCAN ME' },
          margin: 2,
        },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.svg).to.include('<radialGradient');
      const [, w, h] = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(res.body.svg) ?? [];
      expect(Number(h)).to.be.greaterThan(Number(w));
    });

    it('refuses a style that would not scan, naming the part to change', async () => {
      const pale = await dash.api('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'styled',
        style: { corners: { ball: { shape: 'circle', color: '#f4f4f4' } } },
      });
      expect(pale.status).to.equal(422);
      expect(pale.body).to.deep.include({ error: 1, field: 'style.corners.ball.color' });
      expect(pale.body.message).to.match(/^style\.corners\.ball\.color \(rgb\(244,244,244\)\)/);
      const crossing = await dash.api('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'styled',
        style: { gradient: { type: 'linear', colors: ['#000000', '#fafafa'] } },
      });
      expect(crossing.status).to.equal(422);
      expect(crossing.body).to.deep.include({ error: 1, field: 'style.gradient' });
      expect(crossing.body.message).to.match(/^style\.gradient crosses below the contrast/);
      const shape = await dash.api('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'styled',
        style: { dots: 'stars' },
      });
      expect(shape.status).to.equal(422);
      expect(shape.body).to.deep.include({ error: 1, field: 'style.dots' });
    });

    it('refuses colours that would not scan, with the rule', async () => {
      const res = await dash.api('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'hello',
        foreground: 'rgb(200,200,200)',
        background: 'rgb(255,255,255)',
      });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.match(/^foreground and background contrast is .* at least 3:1/);
    });

    it('names the data field that is wrong', async () => {
      const res = await dash.api('POST', '/dashboard/qr-preview', { type: 'wifi', data: {} });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'data.ssid is required' });
    });

    it('stores an uploaded logo where the API’s logo paths point', async () => {
      const png = await solidLogo({ r: 200, g: 0, b: 0 });
      const upload = await dash.send<{ logo: string }>('/app/api/dashboard/logo', {
        method: 'POST',
        rawBody: png as unknown as string,
        headers: { 'content-type': 'image/png', 'x-csrf-token': dash.csrf },
      });
      expect(upload.status, upload.text).to.equal(200);
      expect(upload.body.logo).to.match(new RegExp(`^uploads/${user.user.id}/[0-9a-f]{32}\\.png$`));
      const qr = await dash.api('POST', '/qr/add', {
        type: 'text',
        data: 'with a logo',
        logo: upload.body.logo,
      });
      expect(qr.status, qr.text).to.equal(200);
    });

    it('previews the logo on its plate, and says why a logo cannot be used', async () => {
      const png = await solidLogo({ r: 0, g: 120, b: 0 });
      const upload = await dash.send<{ logo: string }>('/app/api/dashboard/logo', {
        method: 'POST',
        rawBody: png as unknown as string,
        headers: { 'content-type': 'image/png', 'x-csrf-token': dash.csrf },
      });
      const res = await dash.api<{ svg: string }>('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'with a logo',
        logo: upload.body.logo,
      });
      expect(res.status).to.equal(200);
      expect(res.body.svg).to.match(/<image [^>]*href="data:image\/png;base64,/);
      const missing = await dash.api('POST', '/dashboard/qr-preview', {
        type: 'text',
        data: 'x',
        logo: 'uploads/nothing-here.png',
      });
      expect(missing.status).to.equal(422);
      expect(missing.body).to.deep.include({
        error: 1,
        message: 'logo: logo file not found in LOGO_DIR',
      });
    });

    it('refuses a file that is not a png or jpeg image', async () => {
      const res = await dash.send('/app/api/dashboard/logo', {
        method: 'POST',
        rawBody: 'not an image',
        headers: { 'content-type': 'image/png', 'x-csrf-token': dash.csrf },
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'logo: logo is not a png or jpeg image',
      });
    });
  });

  describe('account page', () => {
    it('rotates the key: the new one is shown once, the old one is refused by the API', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const res = await session.form('/app/account/key', { current: TEST_PASSWORD });
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const newKey = /<code class="key" id="new-key">([^<]+)<\/code>/.exec(res.text)?.[1];
      expect(newKey).to.match(/^lqr_/);
      expect((await client(app.url, owner.apiKey).get('/api/account')).status).to.equal(401);
      expect((await client(app.url, newKey).get('/api/account')).status).to.equal(200);
      const again = await session.send('/app/account');
      expect(again.text).not.to.include(newKey as string);
    });

    it('changes the password only with the current one, ending the other sessions', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const elsewhere = await signedIn(app.url, owner);
      const refused = await session.form('/app/account/password', {
        current: 'not it',
        password: 'a brand new password',
      });
      expect(refused.status).to.equal(422);
      expect(refused.text).to.include('The current password is wrong');
      const short = await session.form('/app/account/password', {
        current: TEST_PASSWORD,
        password: 'short',
      });
      expect(short.status).to.equal(422);
      expect(short.text).to.include('password length must be at least 8 characters long');
      const ok = await session.form('/app/account/password', {
        current: TEST_PASSWORD,
        password: 'a brand new password',
      });
      expect(ok.status).to.equal(303);
      expect((await session.api('GET', '/account')).status).to.equal(200);
      expect((await elsewhere.api('GET', '/account')).status).to.equal(401);
      const fresh = await signedIn(app.url, owner).catch((err: Error) => err);
      expect(fresh).to.be.instanceOf(Error);
      const again = new DashboardClient(app.url);
      expect((await again.signIn(owner.user.email, 'a brand new password')).status).to.equal(303);
    });

    it('changes the email, refusing one that is taken (409 next to the field)', async () => {
      const owner = await createDashboardUser();
      const other = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const taken = await session.form('/app/account/email', {
        current: TEST_PASSWORD,
        email: other.user.email,
      });
      expect(taken.status).to.equal(409);
      expect(taken.text).to.include('email is already registered');
      const email = `new-${owner.user.username}@example.test`;
      const ok = await session.form('/app/account/email', { current: TEST_PASSWORD, email });
      expect(ok.status).to.equal(303);
      const page = await session.send('/app/account?done=email');
      expect(page.text).to.include('Your email has been changed.');
      expect(page.text).to.include(email);
    });

    it('shows the plan’s record limits from PLANS', async () => {
      const planned = await startTestApp({
        PLANS: JSON.stringify([{ id: 1, name: 'starter', maxLinks: 10, maxQrCodes: 0 }]),
      });
      try {
        const owner = await createDashboardUser({ plan: 'starter' });
        const session = await signedIn(planned.url, owner);
        const page = await session.send('/app/account');
        expect(page.text).to.match(/<dt>Links<\/dt>\s*<dd>at most 10<\/dd>/);
        expect(page.text).to.match(/<dt>QR codes<\/dt>\s*<dd>at most 0<\/dd>/);
        expect(page.text).to.match(/<dt>Branded domains<\/dt>\s*<dd>unlimited<\/dd>/);
      } finally {
        await planned.close();
      }
    });

    it('shows the plan and its request limit', async () => {
      const page = await dash.send('/app/account');
      expect(page.text).to.match(/<dt>Plan<\/dt>\s*<dd>test<\/dd>/);
      expect(page.text).to.include('100000 per 60 s');
    });
  });
});
