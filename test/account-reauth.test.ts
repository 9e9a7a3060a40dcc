import { expect } from 'chai';
import { User } from '../src/users/user.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn, TEST_PASSWORD } from './support/dashboard';
import { client } from './support/http';

/** Issue 29, H1: a stolen dashboard session must not be enough to keep the account. */
describe('re-authentication for account changes in a dashboard session', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('PUT /app/api/account/update', () => {
    it('refuses an email change without the current password (422), leaving the email', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const res = await session.api('PUT', '/account/update', {
        email: `taken-over-${owner.user.username}@example.test`,
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'current is required: your current password, to change this',
      });
      const stored = await User.findOne({ id: owner.user.id }).lean();
      expect(stored?.email).to.equal(owner.user.email);
    });

    it('refuses a password change with a wrong current password (422)', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const res = await session.api('PUT', '/account/update', {
        password: 'attacker chosen password',
        current: 'a guess',
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'current: the current password is wrong',
      });
      const stored = await User.findOne({ id: owner.user.id }).lean();
      expect(stored?.passwordHash).to.equal(owner.user.passwordHash);
    });

    it('changes the password with the current one: this session goes on, the others end', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const elsewhere = await signedIn(app.url, owner);
      const res = await session.api('PUT', '/account/update', {
        password: 'a brand new password',
        current: TEST_PASSWORD,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Account has been successfully updated.',
      });
      expect((await session.api('GET', '/account')).status).to.equal(200);
      const ended = await elsewhere.api('GET', '/account');
      expect(ended.status).to.equal(401);
      expect(ended.body).to.deep.include({ error: 1, message: 'Sign in at /app/signin first' });
    });
  });

  describe('through an API key (the seed contract: the key is the whole credential)', () => {
    it('changes the password with the key alone and ends every dashboard session', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const res = await client(app.url, owner.apiKey).put('/api/account/update', {
        password: 'changed through the key',
      });
      expect(res.status).to.equal(200);
      expect((await session.api('GET', '/account')).status).to.equal(401);
    });
  });

  describe('POST /app/account/key', () => {
    it('refuses to rotate the key without the current password, keeping the old key', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      for (const fields of [{}, { current: 'not it' }] as Record<string, string>[]) {
        const res = await session.form('/app/account/key', fields);
        expect(res.status).to.equal(422);
        expect(res.text).to.include('The current password is wrong');
        expect(res.text).not.to.include('id="new-key"');
      }
      expect((await client(app.url, owner.apiKey).get('/api/account')).status).to.equal(200);
    });

    it('rotates the key with the current password', async () => {
      const owner = await createDashboardUser();
      const session = await signedIn(app.url, owner);
      const res = await session.form('/app/account/key', { current: TEST_PASSWORD });
      expect(res.status).to.equal(200);
      const newKey = /<code class="key" id="new-key">([^<]+)<\/code>/.exec(res.text)?.[1];
      expect(newKey).to.match(/^lqr_/);
      expect((await client(app.url, owner.apiKey).get('/api/account')).status).to.equal(401);
    });
  });
});
