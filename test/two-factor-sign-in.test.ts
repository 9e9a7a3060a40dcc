import { expect } from 'chai';
import { AuditEntry } from '../src/audit/audit.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, DashboardClient, signedIn, TEST_PASSWORD } from './support/dashboard';
import { client } from './support/http';
import type { TestUser } from './support/users';
import { allowNextCode, enrol, totpNow } from './support/two-factor';

/** The password step of a user with two-factor sign-in on: it asks for the code next. */
async function passwordStep(baseUrl: string, user: TestUser, next?: string) {
  const dash = new DashboardClient(baseUrl);
  await dash.send('/app/signin');
  const res = await dash.form('/app/signin', {
    email: user.user.email,
    password: TEST_PASSWORD,
    ...(next ? { next } : {}),
  });
  // The code form carries the new session's CSRF token, as a browser following the redirect sees.
  if (res.headers.get('location') === '/app/signin/code') await dash.send('/app/signin/code');
  return { dash, res };
}

describe('dashboard sign-in with two-factor', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ SIGNIN_LIMIT_PER_ACCOUNT: '3', SIGNIN_LIMIT_PER_IP: '1000' });
  });
  after(() => app.close());

  it('asks for a code after the password, and only the code opens the session', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const { dash, res } = await passwordStep(app.url, user, '/app/r/pixels');
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/app/signin/code');
    expect((await dash.send('/app/links')).status).to.equal(303);
    expect((await dash.api('GET', '/account')).status).to.equal(401);
    const page = await dash.send('/app/signin/code');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('autocomplete="one-time-code"');
    const done = await dash.form('/app/signin/code', { code: totpNow(secret) });
    expect(done.status, done.text).to.equal(303);
    expect(done.headers.get('location')).to.equal('/app/r/pixels');
    expect((await dash.send('/app/links')).status).to.equal(200);
  });

  it('refuses a wrong code with 401 and the form again', async () => {
    const user = await createDashboardUser();
    await enrol(app.url, user);
    const { dash } = await passwordStep(app.url, user);
    await dash.send('/app/signin/code');
    const res = await dash.form('/app/signin/code', { code: '000000' });
    expect(res.status).to.equal(401);
    expect(res.text).to.include('That code is wrong or was used already.');
    expect(res.text).to.include('aria-invalid="true"');
    expect((await dash.send('/app/links')).status).to.equal(303);
  });

  it('refuses a code used already (no replay within its 30 seconds)', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const code = totpNow(secret);
    const first = await passwordStep(app.url, user);
    expect((await first.dash.form('/app/signin/code', { code })).status).to.equal(303);
    const second = await passwordStep(app.url, user);
    const res = await second.dash.form('/app/signin/code', { code });
    expect(res.status).to.equal(401);
  });

  it('signs in with a recovery code once, and logs its use', async () => {
    const user = await createDashboardUser();
    const { recoveryCodes } = await enrol(app.url, user);
    const code = recoveryCodes[0] as string;
    const first = await passwordStep(app.url, user);
    const ok = await first.dash.form('/app/signin/code', { code });
    expect(ok.status).to.equal(303);
    expect(ok.headers.get('location')).to.equal('/app/links');
    const second = await passwordStep(app.url, user);
    const reused = await second.dash.form('/app/signin/code', { code });
    expect(reused.status).to.equal(401);
    expect(reused.text).to.include('That code is wrong or was used already.');
    const entry = await AuditEntry.findOne({
      accountId: user.user.id,
      route: '/app/signin/code',
    }).lean();
    expect(entry).to.deep.include({
      actorId: user.user.id,
      type: 'two-factor',
      via: 'session',
      changes: { recoveryCode: 'used' },
    });
    const status = await client(app.url, user.apiKey).get<{ data: { recoveryCodesLeft: number } }>(
      '/api/account/2fa',
    );
    expect(status.body.data.recoveryCodesLeft).to.equal(9);
  });

  it('throttles wrong codes with the sign-in’s per-account count: 429 past the cap', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const { dash } = await passwordStep(app.url, user);
    for (let i = 0; i < 3; i += 1) {
      expect((await dash.form('/app/signin/code', { code: '000000' })).status).to.equal(401);
    }
    const locked = await dash.form('/app/signin/code', { code: totpNow(secret) });
    expect(locked.status).to.equal(429);
    expect(locked.text).to.include('Too many failed sign-ins');
    // The password step counts against the same account too.
    const again = await passwordStep(app.url, user);
    expect(again.res.status).to.equal(429);
  });

  it('sends the code step back to the password when no sign-in waits for it', async () => {
    const dash = new DashboardClient(app.url);
    await dash.send('/app/signin');
    const page = await dash.send('/app/signin/code');
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/app/signin');
    const res = await dash.form('/app/signin/code', { code: '123456' });
    expect(res.status).to.equal(401);
    expect(res.text).to.include('Your sign-in timed out: enter your password again.');
  });

  it('asks for the password again when it changed between the two steps', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const { dash } = await passwordStep(app.url, user);
    await client(app.url, user.apiKey).put('/api/account/update', { password: 'a new password 1' });
    const res = await dash.form('/app/signin/code', { code: totpNow(secret) });
    expect(res.status).to.equal(401);
    expect(res.text).to.include('Your sign-in is no longer valid: enter your password again.');
  });

  it('remembers a device for 30 days when asked, until devices are forgotten', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const { dash } = await passwordStep(app.url, user);
    const done = await dash.form('/app/signin/code', { code: totpNow(secret), remember: 'on' });
    expect(done.status).to.equal(303);
    const header = done.headers.getSetCookie().find((c) => c.startsWith('linkqr.device='));
    expect(header).to.include('HttpOnly');
    expect(header).to.include('Path=/app');
    expect(header).to.match(/Max-Age=2592000/);
    const device = (header as string).split(';')[0] as string;

    const remembered = new DashboardClient(app.url);
    remembered.cookie = device;
    await remembered.send('/app/signin');
    remembered.cookie = [remembered.cookie, device].join('; ');
    const res = await remembered.form('/app/signin', {
      email: user.user.email,
      password: TEST_PASSWORD,
    });
    expect(res.headers.get('location')).to.equal('/app/links');

    await client(app.url, user.apiKey).post('/api/account/2fa/forget-devices');
    const forgotten = new DashboardClient(app.url);
    await forgotten.send('/app/signin');
    forgotten.cookie = [forgotten.cookie, device].join('; ');
    const asked = await forgotten.form('/app/signin', {
      email: user.user.email,
      password: TEST_PASSWORD,
    });
    expect(asked.headers.get('location')).to.equal('/app/signin/code');
  });

  it('forgets a remembered device when the password changes', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const { dash } = await passwordStep(app.url, user);
    const done = await dash.form('/app/signin/code', { code: totpNow(secret), remember: 'on' });
    const device = cookieNamed(done.headers, 'linkqr.device');
    const password = 'another password 2';
    await client(app.url, user.apiKey).put('/api/account/update', { password });
    const next = new DashboardClient(app.url);
    await next.send('/app/signin');
    next.cookie = [next.cookie, device].join('; ');
    const res = await next.form('/app/signin', { email: user.user.email, password });
    expect(res.headers.get('location')).to.equal('/app/signin/code');
  });

  it('signs in with the password alone once two-factor is off', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    await client(app.url, user.apiKey).post('/api/account/2fa/disable', {
      current: TEST_PASSWORD,
      code: totpNow(secret),
    });
    const { res } = await passwordStep(app.url, user);
    expect(res.headers.get('location')).to.equal('/app/links');
  });
});

describe('dashboard sign-in with two-factor: wrong codes per password step', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ SIGNIN_LIMIT_PER_ACCOUNT: '100', SIGNIN_LIMIT_PER_IP: '1000' });
  });
  after(() => app.close());

  it('asks for the password again after five wrong codes', async () => {
    const user = await createDashboardUser();
    const { secret } = await enrol(app.url, user);
    const { dash } = await passwordStep(app.url, user);
    for (let i = 0; i < 4; i += 1) {
      expect((await dash.form('/app/signin/code', { code: '000000' })).status).to.equal(401);
    }
    const fifth = await dash.form('/app/signin/code', { code: '000000' });
    expect(fifth.status).to.equal(401);
    expect(fifth.text).to.include('Too many wrong codes: enter your password again.');
    const late = await dash.form('/app/signin/code', { code: totpNow(secret) });
    expect(late.status).to.equal(401);
    expect(late.text).to.include('Your sign-in timed out: enter your password again.');
    await allowNextCode(user.user.id);
  });
});

describe('the Security page', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ SIGNIN_LIMIT_PER_ACCOUNT: '100', SIGNIN_LIMIT_PER_IP: '1000' });
  });
  after(() => app.close());

  it('sets up with the password, shows the QR code and secret, then the recovery codes', async () => {
    const user = await createDashboardUser();
    const dash = await signedIn(app.url, user);
    const page = await dash.send('/app/security');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Two-factor sign-in is <strong>off</strong>');
    const wrong = await dash.form('/app/security/2fa/setup', { current: 'not it' });
    expect(wrong.status).to.equal(422);
    expect(wrong.text).to.include('the current password is wrong');
    const setup = await dash.form('/app/security/2fa/setup', { current: TEST_PASSWORD });
    expect(setup.status).to.equal(200);
    expect(setup.text).to.include('src="data:image/svg+xml;base64,');
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(setup.text)?.[1] as string;
    expect(secret).to.have.length(32);
    const bad = await dash.form('/app/security/2fa/enable', { code: '000000' });
    expect(bad.status).to.equal(422);
    expect(bad.text).to.include('the code is wrong or was used already');
    expect(bad.text).to.include(`id="totp-secret">${secret}<`);
    const on = await dash.form('/app/security/2fa/enable', { code: totpNow(secret) });
    expect(on.status).to.equal(200);
    expect(on.text).to.include('Two-factor sign-in is on.');
    expect(on.text.match(/<li><code>[0-9a-z-]{19}<\/code><\/li>/g)).to.have.length(10);
    const off = await dash.form('/app/security/2fa/disable', { current: TEST_PASSWORD, code: '1' });
    expect(off.status).to.equal(422);
    expect(off.text).to.include('aria-describedby="disable-code-error"');
  });
});

describe('the Security page: sign out everywhere', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('ends every dashboard session of the user, this one included; signing in again works', async () => {
    const user = await createDashboardUser();
    const here = await signedIn(app.url, user);
    const elsewhere = await signedIn(app.url, user);
    const someoneElse = await signedIn(app.url, await createDashboardUser());
    await here.send('/app/security');
    const res = await here.form('/app/security/signout-everywhere', {});
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/app/signin');
    expect((await here.send('/app/links')).status).to.equal(303);
    expect((await elsewhere.send('/app/links')).status).to.equal(303);
    const api = await elsewhere.api('GET', '/account');
    expect(api.status).to.equal(401);
    expect(api.body).to.deep.include({ error: 1, code: 'unauthorized' });
    expect((await someoneElse.send('/app/links')).status).to.equal(200);
    expect((await client(app.url, user.apiKey).get('/api/account')).status).to.equal(200);
    const again = await signedIn(app.url, user);
    expect((await again.send('/app/links')).status).to.equal(200);
  });
});

function cookieNamed(headers: Headers, name: string): string {
  const found = headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (!found) throw new Error(`no ${name} cookie`);
  return found.split(';')[0] as string;
}
