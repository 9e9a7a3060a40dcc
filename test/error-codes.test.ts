import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ERROR_CODES, errorCodeNames } from '../src/shared/errors/error-codes';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, request } from './support/http';
import { createTestUser } from './support/users';

describe('error codes in failure bodies', () => {
  let app: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    app = await startTestApp();
    api = client(app.url, (await createTestUser()).apiKey);
  });
  after(() => app.close());

  it('names the missing body field of a 422: validation_failed with field', async () => {
    const res = await api.post('/api/url/add', { title: 'no url' });
    expect([res.status, res.body]).to.deep.equal([
      422,
      { error: 1, message: 'url is required', code: 'validation_failed', field: 'url' },
    ]);
  });

  it('names a nested field by its path', async () => {
    const res = await api.post('/api/bio/add', {
      name: 'Ada',
      links: [
        { title: 'ok', url: 'https://ok.example' },
        { title: 'bad', url: 'ftp://x' },
      ],
    });
    expect(res.status).to.equal(422);
    expect(res.body).to.include({ code: 'validation_failed', field: 'links.1.url' });
  });

  it('names the field a service refuses', async () => {
    const res = await api.post('/api/domain/add', { domain: 'go.example.com/path' });
    expect(res.status).to.equal(422);
    expect(res.body).to.include({ code: 'validation_failed', field: 'domain' });
  });

  it('names a bad query parameter: bad_query with field', async () => {
    const res = await api.get('/api/urls?limit=0');
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ error: 1, code: 'bad_query', field: 'limit' });
  });

  const cases: Array<[string, () => Promise<{ status: number; body: unknown }>, number, string]> = [
    ['an unknown id', () => api.get('/api/url/999999999'), 404, 'not_found'],
    ['an unknown route', () => api.get('/api/nothing-here'), 404, 'not_found'],
    ['no key', () => request(app.url, '/api/account'), 401, 'unauthorized'],
    [
      'malformed JSON',
      () =>
        api.post('/api/url/add', undefined, {
          rawBody: '{"url":',
          headers: { 'content-type': 'application/json' },
        }),
      400,
      'bad_json',
    ],
    [
      'a body that is not JSON',
      () =>
        api.post('/api/url/add', undefined, {
          rawBody: 'url=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      415,
      'unsupported_media_type',
    ],
  ];
  for (const [what, send, status, code] of cases) {
    it(`answers ${what} with ${status} and code ${code}`, async () => {
      const res = await send();
      expect(res.status).to.equal(status);
      expect(res.body).to.include({ error: 1, code });
      expect(res.body).not.to.have.property('field');
    });
  }

  it('answers a taken alias with 409 conflict', async () => {
    const custom = `taken${Date.now().toString(36)}`;
    await api.post('/api/url/add', { url: 'https://example.com', custom });
    const res = await api.post('/api/url/add', { url: 'https://example.com', custom });
    expect([res.status, (res.body as { code: string }).code]).to.deep.equal([409, 'conflict']);
  });

  it('keeps one status per code, and the README lists them all', () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
    for (const code of errorCodeNames) {
      const row = new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${ERROR_CODES[code].status}\\s*\\|`);
      expect(readme, code).to.match(row);
    }
  });
});
