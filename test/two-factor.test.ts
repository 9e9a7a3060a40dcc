import { expect } from 'chai';
import { AuditEntry } from '../src/audit/audit.model';
import { RecoveryCode, TwoFactor } from '../src/two-factor/two-factor.model';
import { twoFactorOff } from '../src/two-factor/two-factor.cli';
import { startTestApp, type TestApp } from './support/app-harness';
import { rejection } from './support/rejection';
import { createDashboardUser, TEST_PASSWORD } from './support/dashboard';
import { client } from './support/http';
import { decodeImage } from './support/qr';
import { createTestUser } from './support/users';
import { allowNextCode, enrol, totpNow } from './support/two-factor';

describe('two-factor sign-in: /api/account/2fa', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ SIGNIN_LIMIT_PER_ACCOUNT: '4', SIGNIN_LIMIT_PER_IP: '1000' });
  });
  after(() => app.close());

  it('sets up with the password: a secret, its otpauth URI and QR code; nothing is on yet', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const res = await api.post<{ data: { secret: string; uri: string; qr: string } }>(
      '/api/account/2fa/setup',
      { current: TEST_PASSWORD },
    );
    expect(res.status, res.text).to.equal(200);
    const { secret, uri, qr } = res.body.data;
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    expect(uri).to.equal(
      `otpauth://totp/linkqr:${encodeURIComponent(user.user.email)}?secret=${secret}&issuer=linkqr`,
    );
    expect(qr).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // Drawn by linkqr's own renderer, it must scan as the very URI an authenticator app needs.
    expect((await decodeImage(Buffer.from(qr))).text).to.equal(uri);
    const status = await api.get('/api/account/2fa');
    expect(status.body).to.deep.equal({
      error: 0,
      data: { enabled: false, enabledAt: null, recoveryCodesLeft: 0, pending: true },
    });
    const stored = await TwoFactor.findOne({ userId: user.user.id }).lean();
    expect(stored?.secret).to.equal(null);
    expect(stored?.pendingSecret).to.match(/^v1\./);
    expect(stored?.pendingSecret).not.to.include(secret);
  });

  it('refuses the set-up without the password or with a wrong one (422 naming current)', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const none = await api.post('/api/account/2fa/setup', {});
    expect(none.status).to.equal(422);
    expect(none.body).to.deep.equal({
      error: 1,
      message: 'current is required: your current password, to change this',
      code: 'validation_failed',
      field: 'current',
    });
    const wrong = await api.post('/api/account/2fa/setup', { current: 'not the password' });
    expect(wrong.status).to.equal(422);
    expect(wrong.body).to.deep.equal({
      error: 1,
      message: 'current: the current password is wrong',
      code: 'validation_failed',
      field: 'current',
    });
  });

  it('turns on with a first code and answers ten recovery codes once, stored hashed', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const setup = await api.post<{ data: { secret: string } }>('/api/account/2fa/setup', {
      current: TEST_PASSWORD,
    });
    const wrong = await api.post('/api/account/2fa/enable', { code: '000000' });
    expect(wrong.status).to.equal(422);
    expect(wrong.body).to.deep.equal({
      error: 1,
      message: 'code: the code is wrong or was used already; use a new one',
      code: 'validation_failed',
      field: 'code',
    });
    const res = await api.post<{ data: { recoveryCodes: string[] } }>('/api/account/2fa/enable', {
      code: totpNow(setup.body.data.secret),
    });
    expect(res.status, res.text).to.equal(200);
    const codes = res.body.data.recoveryCodes;
    expect(codes).to.have.length(10);
    expect(new Set(codes).size).to.equal(10);
    for (const code of codes) expect(code).to.match(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    const stored = await RecoveryCode.find({ userId: user.user.id }).lean();
    expect(stored).to.have.length(10);
    for (const doc of stored) {
      expect(doc.hash).to.match(/^[0-9a-f]{64}$/);
      expect(codes.map((c) => c.replace(/-/g, ''))).not.to.include(doc.hash);
    }
    const status = await api.get<{ data: Record<string, unknown> }>('/api/account/2fa');
    expect(status.body.data).to.deep.include({ enabled: true, recoveryCodesLeft: 10 });
    const again = await api.post('/api/account/2fa/setup', { current: TEST_PASSWORD });
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.equal({
      error: 1,
      message: 'Two-factor sign-in is on already: disable it first',
      code: 'conflict',
    });
  });

  it('refuses a first code before any set-up (409) and a code that was used already (422)', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const early = await api.post('/api/account/2fa/enable', { code: '123456' });
    expect(early.status).to.equal(409);
    expect(early.body).to.deep.equal({
      error: 1,
      message: 'No set-up is under way: start it with /api/account/2fa/setup first',
      code: 'conflict',
    });
    const other = await createDashboardUser();
    const { secret } = await enrol(app.url, other);
    const code = totpNow(secret);
    const body = { current: TEST_PASSWORD, code };
    const first = await client(app.url, other.apiKey).post('/api/account/2fa/recovery-codes', body);
    expect(first.status, first.text).to.equal(200);
    const replay = await client(app.url, other.apiKey).post(
      '/api/account/2fa/recovery-codes',
      body,
    );
    expect(replay.status).to.equal(422);
    expect(replay.body).to.deep.include({ code: 'validation_failed', field: 'code' });
  });

  it('turns off only with the password and a current code, and logs enabling and disabling', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const { secret } = await enrol(app.url, user);
    const noCode = await api.post('/api/account/2fa/disable', { current: TEST_PASSWORD });
    expect(noCode.status).to.equal(422);
    expect(noCode.body).to.deep.equal({
      error: 1,
      message: 'code is required: a code from your app or a recovery code',
      code: 'validation_failed',
      field: 'code',
    });
    const wrongPassword = await api.post('/api/account/2fa/disable', {
      current: 'not the password',
      code: totpNow(secret),
    });
    expect(wrongPassword.status).to.equal(422);
    expect(wrongPassword.body).to.deep.include({ field: 'current' });
    const res = await api.post('/api/account/2fa/disable', {
      current: TEST_PASSWORD,
      code: totpNow(secret),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ error: 0, message: 'Two-factor sign-in is off.' });
    expect(await TwoFactor.countDocuments({ userId: user.user.id })).to.equal(0);
    expect(await RecoveryCode.countDocuments({ userId: user.user.id })).to.equal(0);
    const off = await api.post('/api/account/2fa/disable', { current: TEST_PASSWORD, code: '1' });
    expect(off.status).to.equal(409);
    expect(off.body).to.deep.equal({
      error: 1,
      message: 'Two-factor sign-in is off',
      code: 'conflict',
    });

    const entries = await AuditEntry.find({ accountId: user.user.id }).sort({ at: 1 }).lean();
    const routes = entries.map((e) => e.route);
    expect(routes).to.include.members([
      '/api/account/2fa/setup',
      '/api/account/2fa/enable',
      '/api/account/2fa/disable',
    ]);
    const disabled = entries.find((e) => e.route === '/api/account/2fa/disable');
    expect(disabled?.changes).to.deep.equal({ current: '[secret]', code: '[secret]' });
  });

  it('turns off with a recovery code, which is used up', async () => {
    const user = await createDashboardUser();
    const { recoveryCodes } = await enrol(app.url, user);
    const res = await client(app.url, user.apiKey).post('/api/account/2fa/disable', {
      current: TEST_PASSWORD,
      code: (recoveryCodes[3] as string).toUpperCase(),
    });
    expect(res.status, res.text).to.equal(200);
  });

  it('makes new recovery codes: the old ones stop working', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const { secret, recoveryCodes } = await enrol(app.url, user);
    const res = await api.post<{ data: { recoveryCodes: string[] } }>(
      '/api/account/2fa/recovery-codes',
      { current: TEST_PASSWORD, code: totpNow(secret) },
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.recoveryCodes).to.have.length(10);
    expect(res.body.data.recoveryCodes).not.to.include(recoveryCodes[0]);
    const old = await api.post('/api/account/2fa/disable', {
      current: TEST_PASSWORD,
      code: recoveryCodes[0],
    });
    expect(old.status).to.equal(422);
    expect(old.body).to.deep.include({ field: 'code' });
  });

  it('throttles wrong codes per account: past the cap it answers 429, right code or not', async () => {
    const user = await createDashboardUser();
    const api = client(app.url, user.apiKey);
    const { secret } = await enrol(app.url, user);
    for (let i = 0; i < 4; i += 1) {
      const wrong = await api.post('/api/account/2fa/disable', {
        current: TEST_PASSWORD,
        code: '000000',
      });
      expect(wrong.status).to.equal(422);
    }
    const locked = await api.post('/api/account/2fa/disable', {
      current: TEST_PASSWORD,
      code: totpNow(secret),
    });
    expect(locked.status).to.equal(429);
    expect(locked.body).to.deep.include({ error: 1, code: 'rate_limited' });
    expect(locked.body)
      .to.have.property('message')
      .that.match(/^Too many failed sign-ins/);
    expect(locked.headers.get('retry-after')).to.match(/^\d+$/);
    expect(await TwoFactor.countDocuments({ userId: user.user.id })).to.equal(1);
  });

  it('answers a key without account:write 403 naming the scope', async () => {
    const user = await createDashboardUser();
    const add = await client(app.url, user.apiKey).post<{ key: string }>('/api/keys/add', {
      name: 'reader',
      scopes: ['account:read'],
    });
    const reader = client(app.url, add.body.key);
    expect((await reader.get('/api/account/2fa')).status).to.equal(200);
    const res = await reader.post('/api/account/2fa/setup', { current: TEST_PASSWORD });
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.include({ error: 1, code: 'insufficient_scope' });
  });

  it('is the member’s own: acting in another account cannot set up the owner’s', async () => {
    const owner = await createDashboardUser();
    const member = await createDashboardUser();
    await client(app.url, owner.apiKey).post('/api/team/add', {
      username: member.user.username,
      role: 'admin',
    });
    const as = { headers: { 'linkqr-account': String(owner.user.id) } };
    const api = client(app.url, member.apiKey);
    const res = await api.post('/api/account/2fa/setup', { current: TEST_PASSWORD }, as);
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.include({ code: 'insufficient_role' });
    await enrol(app.url, member);
    const read = await api.get<{ data: { enabled: boolean } }>('/api/account/2fa', as);
    expect(read.status).to.equal(200);
    expect(read.body.data.enabled).to.equal(true);
    expect(await TwoFactor.countDocuments({ userId: owner.user.id })).to.equal(0);
  });

  it('forgets remembered devices on request', async () => {
    const user = await createDashboardUser();
    await enrol(app.url, user);
    const before = await TwoFactor.findOne({ userId: user.user.id }).lean();
    const res = await client(app.url, user.apiKey).post('/api/account/2fa/forget-devices');
    expect(res.status, res.text).to.equal(200);
    const after = await TwoFactor.findOne({ userId: user.user.id }).lean();
    expect(after?.deviceEpoch).not.to.equal(before?.deviceEpoch);
    await allowNextCode(user.user.id);
  });
});

describe('user:2fa-off (an operator turns a locked-out user’s second factor off)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('turns it off, recovery codes included; the password alone signs in again', async () => {
    const user = await createDashboardUser();
    await enrol(app.url, user);
    const out = await twoFactorOff.run(['--user', String(user.user.id)]);
    expect(out).to.deep.equal({
      id: user.user.id,
      username: user.user.username,
      twoFactor: 'off',
      wasOn: true,
    });
    expect(await TwoFactor.countDocuments({ userId: user.user.id })).to.equal(0);
    expect(await RecoveryCode.countDocuments({ userId: user.user.id })).to.equal(0);
  });

  it('refuses an unknown user and a malformed id', async () => {
    const missing = await rejection(twoFactorOff.run(['--user', '99999999']));
    expect(missing.message).to.equal('User not found');
    const bad = await rejection(twoFactorOff.run(['--user', 'x']));
    expect(bad.message).to.equal('--user must be a positive integer');
  });
});

describe('two-factor sign-in without WEBHOOK_SECRET_KEY', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ WEBHOOK_SECRET_KEY: undefined });
  });
  after(() => app.close());

  it('answers the set-up 503: the secret could not be encrypted', async () => {
    const user = await createTestUser({ password: TEST_PASSWORD });
    const res = await client(app.url, user.apiKey).post('/api/account/2fa/setup', {
      current: TEST_PASSWORD,
    });
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.include({
      error: 1,
      message: 'Two-factor sign-in is not configured: set WEBHOOK_SECRET_KEY',
      code: 'unavailable',
    });
  });
});
