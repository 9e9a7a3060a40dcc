import { expect } from 'chai';
import { apiKeyCacheFor } from '../src/users/api-key-cache';
import { rotateApiKey } from '../src/users/users.service';
import { startTestApp, type TestApp } from './support/app-harness';
import { request } from './support/http';
import { createTestUser } from './support/users';

describe('authentication', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const failure = (message: string) => ({ error: 1, message, code: 'unauthorized' });

  it('answers 401 when the Authorization header is missing', async () => {
    const res = await request(app.url, '/api/account');
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(
      failure('Missing API key: send Authorization: Bearer <API_KEY>'),
    );
    expect(res.headers.get('www-authenticate')).to.equal('Bearer');
  });

  it('answers 401 when the header is neither a Bearer nor a Token credential', async () => {
    const res = await request(app.url, '/api/account', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(
      failure('Malformed Authorization header: expected Bearer <API_KEY> or Token <API_KEY>'),
    );
  });

  describe('with the Token scheme (GemPixel wrapper and clients)', () => {
    const as = (scheme: string, key: string) =>
      request(app.url, '/api/account', { headers: { authorization: `${scheme} ${key}` } });

    it('authenticates `Token <key>` exactly like `Bearer <key>`', async () => {
      const { user, apiKey } = await createTestUser();
      for (const scheme of ['Token', 'Bearer', 'token', 'BEARER']) {
        const res = await as(scheme, apiKey);
        expect(res.status, scheme).to.equal(200);
        expect((res.body.data as { id: number }).id, scheme).to.equal(user.id);
        expect(res.headers.get('x-ratelimit-limit'), scheme).to.be.a('string');
      }
    });

    it('fails a bad key the same way under both schemes', async () => {
      for (const [key, message] of [
        ['not-a-key', 'Malformed API key'],
        [`lqr_${'B'.repeat(43)}`, 'Invalid API key'],
      ] as const) {
        const token = await as('Token', key);
        const bearer = await as('Bearer', key);
        expect(token.status).to.equal(401);
        expect(token.body).to.deep.equal(failure(message));
        expect(bearer.status).to.equal(401);
        expect(bearer.body).to.deep.equal(token.body);
      }
    });

    it('refuses an expired plan under the Token scheme too', async () => {
      const { apiKey } = await createTestUser({ expires: new Date(Date.now() - 1000) });
      const res = await as('Token', apiKey);
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal(failure('API key expired: the account plan ended'));
    });
  });

  it('answers 401 when the key does not have the key format', async () => {
    const res = await request(app.url, '/api/account', { key: 'not-a-key' });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(failure('Malformed API key'));
  });

  it('answers 401 for a well-formed key that belongs to nobody', async () => {
    const res = await request(app.url, '/api/account', { key: `lqr_${'A'.repeat(43)}` });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(failure('Invalid API key'));
  });

  it('answers 401 when the account plan has expired', async () => {
    const { apiKey } = await createTestUser({ expires: new Date(Date.now() - 1000) });
    const res = await request(app.url, '/api/account', { key: apiKey });
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(failure('API key expired: the account plan ended'));
  });

  it('accepts a key whose plan ends in the future', async () => {
    const { apiKey } = await createTestUser({ expires: new Date(Date.now() + 60_000) });
    expect((await request(app.url, '/api/account', { key: apiKey })).status).to.equal(200);
  });

  it('asks for a key before revealing whether a route exists', async () => {
    const res = await request(app.url, '/api/no-such-thing');
    expect(res.status).to.equal(401);
  });

  it('revokes the old key when the key is rotated', async () => {
    const { user, apiKey } = await createTestUser();
    await request(app.url, '/api/account', { key: apiKey });
    const { apiKey: fresh } = await rotateApiKey(user.id, apiKeyCacheFor(app.deps));
    expect(fresh).not.to.equal(apiKey);
    const old = await request(app.url, '/api/account', { key: apiKey });
    expect(old.status).to.equal(401);
    expect(old.body).to.deep.equal(failure('Invalid API key'));
    expect((await request(app.url, '/api/account', { key: fresh })).status).to.equal(200);
  });
});
