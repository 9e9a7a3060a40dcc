import { expect } from 'chai';
import { User } from '../src/users/user.model';
import { verifyPassword } from '../src/shared/secrets';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, DATE_TIME } from './support/http';
import { createTestUser, uniqueName } from './support/users';

describe('account', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('GET /api/account', () => {
    it('answers the caller account with exactly the spec fields, dates in UTC form', async () => {
      const expires = new Date('2031-02-03T04:05:06Z');
      const { user, apiKey } = await createTestUser({ plan: 'pro', expires });
      const res = await client(app.url, apiKey).get('/api/account');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        data: {
          id: user.id,
          email: user.email,
          username: user.username,
          avatar: user.avatar,
          status: 'pro',
          expires: '2031-02-03 04:05:06',
          registered: res.body.data && (res.body.data as { registered: string }).registered,
        },
      });
      expect((res.body.data as { registered: string }).registered).to.match(DATE_TIME);
      expect(res.text).not.to.match(/password|apiKey|hash/i);
    });

    it('answers expires null when the plan has no end', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get<{ data: { expires: unknown } }>('/api/account');
      expect(res.body.data.expires).to.equal(null);
    });
  });

  describe('PUT /api/account/update', () => {
    it('changes the email', async () => {
      const { user, apiKey } = await createTestUser();
      const email = `${uniqueName('new')}@example.test`;
      const res = await client(app.url, apiKey).put('/api/account/update', { email });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Account has been successfully updated.',
      });
      const again = await client(app.url, apiKey).get<{ data: { email: string } }>('/api/account');
      expect(again.body.data.email).to.equal(email);
      expect((await User.findOne({ id: user.id }).lean())?.email).to.equal(email);
    });

    it('stores a new password hashed and never returns it', async () => {
      const { user, apiKey } = await createTestUser();
      const password = 'correct horse battery staple';
      const res = await client(app.url, apiKey).put('/api/account/update', { password });
      expect(res.status).to.equal(200);
      expect(res.text).not.to.include(password);
      const stored = await User.findOne({ id: user.id }).lean();
      expect(stored?.passwordHash).to.be.a('string').and.not.include(password);
      expect(await verifyPassword(password, stored?.passwordHash ?? '')).to.equal(true);
      const account = await client(app.url, apiKey).get('/api/account');
      expect(account.text).not.to.include(password);
      expect(account.text).not.to.include(stored?.passwordHash ?? '');
    });

    it('answers 422 naming the field for a bad email', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put('/api/account/update', {
        email: 'not-an-email',
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'email must be a valid email' });
    });

    it('answers 422 for a password shorter than 8 characters', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put('/api/account/update', { password: 'short' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'password length must be at least 8 characters long',
      });
    });

    it('answers 422 when neither email nor password is sent', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put('/api/account/update', {});
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'email or password is required' });
    });

    it('answers 422 for a field that is not writable', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put('/api/account/update', { status: 'pro' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'status is not allowed' });
    });

    it('answers 409 when the email belongs to another user', async () => {
      const other = await createTestUser();
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put('/api/account/update', {
        email: other.user.email,
      });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: 'email is already registered' });
    });

    it('accepts the caller own email unchanged', async () => {
      const { user, apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put('/api/account/update', {
        email: user.email.toUpperCase(),
      });
      expect(res.status).to.equal(200);
    });
  });
});
