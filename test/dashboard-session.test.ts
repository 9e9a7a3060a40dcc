import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import {
  cookiesOf,
  createDashboardUser,
  DashboardClient,
  signedIn,
  TEST_PASSWORD,
} from './support/dashboard';
import { testRedisPrefix } from './support/environment';
import { client } from './support/http';
import { loadSessionSecret } from '../src/dashboard/session-secret';
import { User } from '../src/users/user.model';

describe('dashboard sign-in and sessions', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ SIGNIN_LIMIT_PER_ACCOUNT: '3', SIGNIN_LIMIT_PER_IP: '1000' });
  });
  after(() => app.close());

  it('sends a signed-out visitor from a page to the sign-in form and back afterwards', async () => {
    const dash = new DashboardClient(app.url);
    const res = await dash.send('/app/links');
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/app/signin?next=%2Fapp%2Flinks');
    const user = await createDashboardUser();
    await dash.send('/app/signin?next=/app/links');
    const signIn = await dash.form('/app/signin', {
      email: user.user.email,
      password: TEST_PASSWORD,
      next: '/app/r/pixels',
    });
    expect(signIn.status).to.equal(303);
    expect(signIn.headers.get('location')).to.equal('/app/r/pixels');
  });

  it('never redirects after sign-in to another site', async () => {
    const user = await createDashboardUser();
    const dash = new DashboardClient(app.url);
    await dash.send('/app/signin');
    const res = await dash.form('/app/signin', {
      email: user.user.email,
      password: TEST_PASSWORD,
      next: '//evil.example/app',
    });
    expect(res.headers.get('location')).to.equal('/app/links');
  });

  it('sets an HttpOnly, SameSite=Lax session cookie on /app, not Secure over http', async () => {
    const user = await createDashboardUser();
    const res = await new DashboardClient(app.url).signIn(user.user.email);
    const header = res.headers.getSetCookie()[0] ?? '';
    expect(header).to.match(/^linkqr\.sid=/);
    expect(header).to.include('HttpOnly');
    expect(header).to.include('SameSite=Lax');
    expect(header).to.include('Path=/app');
    expect(header).not.to.include('Secure');
  });

  it('refuses a wrong password with 401 and the same message as an unknown email', async () => {
    const user = await createDashboardUser();
    const wrong = new DashboardClient(app.url);
    await wrong.send('/app/signin');
    const a = await wrong.form('/app/signin', { email: user.user.email, password: 'nope nope' });
    const b = await wrong.form('/app/signin', {
      email: `nobody-${user.user.username}@example.test`,
      password: 'nope nope',
    });
    expect(a.status).to.equal(401);
    expect(b.status).to.equal(401);
    expect(a.text).to.include('Wrong email or password.');
    expect(b.text).to.include('Wrong email or password.');
    expect((await wrong.send('/app/links')).status).to.equal(303);
  });

  it('refuses a sign-in form without the CSRF token (403)', async () => {
    const user = await createDashboardUser();
    const dash = new DashboardClient(app.url);
    await dash.send('/app/signin');
    const res = await dash.form(
      '/app/signin',
      { email: user.user.email, password: TEST_PASSWORD },
      false,
    );
    expect(res.status).to.equal(403);
    expect(res.text).to.include('CSRF');
  });

  it('throttles failed sign-ins per account: the right password too is refused once over', async () => {
    const user = await createDashboardUser();
    const dash = new DashboardClient(app.url);
    await dash.send('/app/signin');
    for (let i = 0; i < 3; i += 1) {
      const res = await dash.form('/app/signin', { email: user.user.email, password: 'wrong!!' });
      expect(res.status).to.equal(401);
    }
    const blocked = await dash.form('/app/signin', {
      email: user.user.email,
      password: TEST_PASSWORD,
    });
    expect(blocked.status).to.equal(429);
    expect(blocked.headers.get('retry-after')).to.match(/^\d+$/);
    expect(blocked.text).to.include('Too many failed sign-ins');
    expect(blocked.text).to.match(/<form\s+method="post"\s+action="\/app\/signin"/);
    // Another account from the same address is not affected.
    const other = await createDashboardUser();
    const ok = await dash.form('/app/signin', { email: other.user.email, password: TEST_PASSWORD });
    expect(ok.status).to.equal(303);
  });

  it('refuses a user whose plan has ended, as the API key is refused', async () => {
    const user = await createDashboardUser({ expires: new Date(Date.now() - 60_000) });
    const res = await new DashboardClient(app.url).signIn(user.user.email);
    expect(res.status).to.equal(401);
    expect(res.text).to.include('plan has ended');
  });

  it('ends a session whose plan ends while signed in', async () => {
    const user = await createDashboardUser();
    const dash = await signedIn(app.url, user);
    expect((await dash.api('GET', '/account')).status).to.equal(200);
    await User.updateOne({ id: user.user.id }, { $set: { expires: new Date(Date.now() - 1000) } });
    const res = await dash.api('GET', '/account');
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.include({ error: 1 });
  });

  it('signs out: the session no longer opens pages or the API', async () => {
    const user = await createDashboardUser();
    const dash = await signedIn(app.url, user);
    const old = dash.cookie;
    const out = await dash.form('/app/signout', {});
    expect(out.status).to.equal(303);
    expect(out.headers.get('location')).to.equal('/app/signin');
    dash.cookie = old;
    expect((await dash.send('/app/account')).status).to.equal(303);
    expect((await dash.api('GET', '/account')).status).to.equal(401);
  });

  it('gives a new session id at sign-in (no fixation)', async () => {
    const user = await createDashboardUser();
    const dash = new DashboardClient(app.url);
    await dash.send('/app/signin');
    const before = dash.cookie;
    const res = await dash.form('/app/signin', { email: user.user.email, password: TEST_PASSWORD });
    expect(cookiesOf(res)[0]).to.not.equal(before);
  });

  describe('the session secret', () => {
    it('is SESSION_SECRET when set, else one stored value per database', async () => {
      expect(await loadSessionSecret('x'.repeat(32))).to.equal('x'.repeat(32));
      const stored = await loadSessionSecret(undefined);
      expect(stored).to.have.length.greaterThan(30);
      expect(await loadSessionSecret(undefined)).to.equal(stored);
    });

    it('lets a session opened on one API process work on another', async () => {
      const secret = await loadSessionSecret(undefined);
      const [one, two] = await Promise.all([
        startTestApp({}, { sessionSecret: secret }),
        startTestApp({}, { sessionSecret: secret }),
      ]);
      try {
        const user = await createDashboardUser();
        const dash = await signedIn(one.url, user);
        const elsewhere = new DashboardClient(two.url);
        Object.assign(elsewhere, { cookie: dash.cookie, csrf: dash.csrf });
        expect((await elsewhere.api('GET', '/account')).status).to.equal(200);
        expect(
          (await elsewhere.api('POST', '/url/add', { url: 'https://example.com/b' })).status,
        ).to.equal(200);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });
  });

  describe('per client address', () => {
    let strict: TestApp;
    before(async () => {
      // Its own counters: other tests' failures from 127.0.0.1 must not count here.
      strict = await startTestApp({
        SIGNIN_LIMIT_PER_IP: '2',
        REDIS_PREFIX: `${testRedisPrefix}ip-throttle:`,
      });
    });
    after(() => strict.close());

    it('throttles failed sign-ins from one address across accounts', async () => {
      const dash = new DashboardClient(strict.url);
      await dash.send('/app/signin');
      for (const stem of ['a', 'b']) {
        const res = await dash.form('/app/signin', {
          email: `${stem}-nobody@example.test`,
          password: 'wrong!!',
        });
        expect(res.status).to.equal(401);
      }
      const user = await createDashboardUser();
      const res = await dash.form('/app/signin', {
        email: user.user.email,
        password: TEST_PASSWORD,
      });
      expect(res.status).to.equal(429);
    });
  });

  describe('with a https PUBLIC_URL', () => {
    let secure: TestApp;
    before(async () => {
      secure = await startTestApp({ PUBLIC_URL: 'https://linkqr.test', TRUST_PROXY: 'loopback' });
    });
    after(() => secure.close());

    it('marks the cookie Secure', async () => {
      const res = await new DashboardClient(secure.url).send('/app/signin', {
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.headers.getSetCookie()[0]).to.include('Secure');
    });
  });

  it('serves its assets without a session, and a missing one as 404', async () => {
    const asset = await client(app.url).get('/app/assets/app.js');
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(asset.headers.get('set-cookie')).to.equal(null);
    expect((await client(app.url).get('/app/assets/nothing.js')).status).to.equal(404);
  });

  it('allows only its own assets and never upgrades them to https over http', async () => {
    const res = await new DashboardClient(app.url).send('/app/signin');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("default-src 'self'");
    expect(csp).not.to.include('upgrade-insecure-requests');
  });

  it('keeps /api for keys only: the session cookie does not authenticate it', async () => {
    const user = await createDashboardUser();
    const dash = await signedIn(app.url, user);
    const res = await dash.send('/api/account');
    expect(res.status).to.equal(401);
    expect((await client(app.url, user.apiKey).get('/api/account')).status).to.equal(200);
  });
});
