import { expect } from 'chai';
import { Link, type LinkRecord } from '../src/links/link.model';
import { verifyPassword } from '../src/shared/secrets';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink } from './support/links';
import { createTestUser, uniqueName } from './support/users';

const PUBLIC = 'http://linkqr.test';
const GENERATED = /^http:\/\/linkqr\.test\/[A-Za-z0-9]{7}$/;

function customAlias(): string {
  return uniqueName('al');
}

describe('short links API', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('POST /api/url/add', () => {
    it('creates a link with a generated 7-character alias on PUBLIC_URL', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post('/api/url/add', {
        url: 'https://example.com/a',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: res.body.id,
        shorturl: res.body.shorturl,
        short: res.body.shorturl,
      });
      expect(res.body.id).to.be.a('number');
      expect(res.body.shorturl).to.match(GENERATED);
    });

    it('uses the custom alias when given', async () => {
      const { apiKey } = await createTestUser();
      const alias = customAlias();
      const res = await client(app.url, apiKey).post('/api/url/add', {
        url: 'https://example.com/',
        custom: alias,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: res.body.id,
        shorturl: `${PUBLIC}/${alias}`,
        short: `${PUBLIC}/${alias}`,
      });
    });

    it('answers 409 when the custom alias is taken, even by another user', async () => {
      const owner = await createTestUser();
      const { apiKey } = await createTestUser();
      const { alias } = await createLink(app, owner.apiKey, {
        url: 'https://example.com/',
        custom: customAlias(),
      });
      const res = await client(app.url, apiKey).post('/api/url/add', {
        url: 'https://example.org/',
        custom: alias,
      });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: `alias ${alias} is already taken` });
    });

    it('never hands out the alias of a deleted link again', async () => {
      const { apiKey } = await createTestUser();
      const { id, alias } = await createLink(app, apiKey, {
        url: 'https://example.com/',
        custom: customAlias(),
      });
      expect((await client(app.url, apiKey).delete(`/api/url/${id}/delete`)).status).to.equal(200);
      const res = await client(app.url, apiKey).post('/api/url/add', {
        url: 'https://example.com/other',
        custom: alias,
      });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: `alias ${alias} is already taken` });
    });

    for (const word of ['api', 'healthz', 'readyz', 'API', 'Healthz']) {
      it(`refuses the reserved alias ${word} with 422`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/url/add', {
          url: 'https://example.com/',
          custom: word,
        });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message: `alias ${word} is reserved` });
      });
    }

    it('refuses the short service prefixes (qr, s, r, u, b) as too short', async () => {
      const { apiKey } = await createTestUser();
      for (const custom of ['qr', 'QR', 's', 'r', 'u', 'b']) {
        const res = await client(app.url, apiKey).post('/api/url/add', {
          url: 'https://example.com/',
          custom,
        });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({
          error: 1,
          message: 'custom must be 3-64 letters, digits, hyphens or underscores',
        });
      }
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      [
        'the password is shorter than 8 characters (issue 29, L7)',
        { url: 'https://example.com/', password: '1234567' },
        'password length must be at least 8 characters long',
      ],
      ['url is missing', {}, 'url is required'],
      ['url is not a URL', { url: 'not a url' }, 'url must be an http or https URL'],
      ['url is ftp', { url: 'ftp://example.com/' }, 'url must be an http or https URL'],
      ['url is javascript', { url: 'javascript:alert(1)' }, 'url must be an http or https URL'],
      ['url is not a string', { url: 5 }, 'url must be a string'],
      [
        'url is longer than 2048',
        { url: `https://example.com/${'a'.repeat(2048)}` },
        'url length must be less than or equal to 2048 characters long',
      ],
      [
        'custom is too short',
        { url: 'https://example.com/', custom: 'ab' },
        'custom must be 3-64 letters, digits, hyphens or underscores',
      ],
      [
        'custom is too long',
        { url: 'https://example.com/', custom: 'a'.repeat(65) },
        'custom must be 3-64 letters, digits, hyphens or underscores',
      ],
      [
        'custom has a slash',
        { url: 'https://example.com/', custom: 'abc/def' },
        'custom must be 3-64 letters, digits, hyphens or underscores',
      ],
      [
        'title is too long',
        { url: 'https://example.com/', title: 'x'.repeat(256) },
        'title length must be less than or equal to 255 characters long',
      ],
      [
        'expiry is not a date',
        { url: 'https://example.com/', expiry: 'tomorrow' },
        'expiry must be a date (YYYY-MM-DD HH:MM:SS in UTC, ISO 8601, or YYYY-MM-DD for the end of that day in UTC)',
      ],
      [
        'expiry is an impossible date',
        { url: 'https://example.com/', expiry: '2030-02-31 10:00:00' },
        'expiry must be a date (YYYY-MM-DD HH:MM:SS in UTC, ISO 8601, or YYYY-MM-DD for the end of that day in UTC)',
      ],
      [
        'domain is not a host name',
        { url: 'https://example.com/', domain: 'go example' },
        'domain must be a valid host name such as https://go.example.com',
      ],
      [
        'domain is not an http(s) URL',
        { url: 'https://example.com/', domain: 'ftp://go.example.com' },
        'domain must start with http:// or https://',
      ],
      [
        'domain has a path',
        { url: 'https://example.com/', domain: 'https://go.example.com/x' },
        'domain must be a host only, without a path, query or fragment',
      ],
      ['a field is unknown', { url: 'https://example.com/', alias: 'abc' }, 'alias is not allowed'],
    ];
    for (const [when, body, message] of invalid) {
      it(`answers 422 when ${when}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/url/add', body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
      });
    }

    it('answers 422 for a domain that is not one of the caller branded domains', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post('/api/url/add', {
        url: 'https://example.com/',
        domain: 'https://go.example.com',
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'domain must be one of your branded domains',
      });
    });

    it('stores the password hashed and never returns it', async () => {
      const { apiKey } = await createTestUser();
      const password = 'open sesame 42';
      const res = await client(app.url, apiKey).post<{ id: number }>('/api/url/add', {
        url: 'https://example.com/',
        password,
      });
      expect(res.status).to.equal(200);
      const stored = await Link.findOne({ id: res.body.id }).lean<LinkRecord>();
      expect(stored?.passwordHash).to.be.a('string').and.not.include(password);
      expect(await verifyPassword(password, stored?.passwordHash ?? '')).to.equal(true);
      const details = await client(app.url, apiKey).get(`/api/url/${res.body.id}`);
      expect(details.text).not.to.include(password);
      expect(details.text).not.to.include(stored?.passwordHash ?? '');
    });

    it('yields 50 distinct aliases and ids for 50 parallel creates', async () => {
      const { apiKey } = await createTestUser();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          client(app.url, apiKey).post<{ id: number; shorturl: string }>('/api/url/add', {
            url: `https://example.com/${i}`,
          }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
      expect(new Set(results.map((r) => r.body.id)).size).to.equal(50);
      expect(new Set(results.map((r) => r.body.shorturl)).size).to.equal(50);
      for (const r of results) expect(r.body.shorturl).to.match(GENERATED);
    });

    it('answers 401 without an API key', async () => {
      const res = await client(app.url).post('/api/url/add', { url: 'https://example.com/' });
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'Missing API key: send Authorization: Bearer <API_KEY>',
      });
    });
  });
});
