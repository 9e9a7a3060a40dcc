import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ApiKey } from '../src/keys/key.model';
import { keyUsageFor } from '../src/keys/key-usage';
import { hashApiKey } from '../src/shared/secrets';
import { apiKeyCacheFor } from '../src/users/api-key-cache';
import { startTestApp, type TestApp } from './support/app-harness';
import { baseEnv } from './support/environment';
import { client, DATE_TIME, request } from './support/http';
import { eventually } from './support/links';
import { createTestUser } from './support/users';
import { createDashboardUser, signedIn, TEST_PASSWORD } from './support/dashboard';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');

interface KeyRow {
  id: number;
  name: string;
  prefix: string | null;
  scopes: string[];
  created: string;
  lastused: string | null;
  expires: string | null;
  previous: { prefix: string | null; until: string } | null;
}
type KeyList = { data: { result: number; keys: KeyRow[] } };

const failure = (message: string, code = 'unauthorized') => ({ error: 1, message, code });
const invalid = failure('Invalid API key');

describe('named, scoped API keys', () => {
  let app: TestApp;
  let other: TestApp;
  before(async () => {
    app = await startTestApp();
    other = await startTestApp();
    await apiKeyCacheFor(app.deps).whenLive();
    await apiKeyCacheFor(other.deps).whenLive();
  });
  after(async () => {
    await app.close();
    await other.close();
  });

  const account = (on: TestApp, key: string) => request(on.url, '/api/account', { key });
  const isCached = (on: TestApp, key: string) =>
    apiKeyCacheFor(on.deps).peek(hashApiKey(key)) !== undefined;

  async function addKey(owner: string, body: Record<string, unknown>) {
    const res = await client(app.url, owner).post<{ error: number; id: number; key: string }>(
      '/api/keys/add',
      body,
    );
    expect(res.status, res.text).to.equal(200);
    return res.body;
  }

  async function keysOf(owner: string): Promise<KeyRow[]> {
    const res = await client(app.url, owner).get<KeyList>('/api/keys');
    expect(res.status, res.text).to.equal(200);
    return res.body.data.keys;
  }

  it('adds a key shown once, lists it by prefix beside the default key, never the key itself', async () => {
    const { apiKey } = await createTestUser();
    const added = await addKey(apiKey, { name: 'reports', scopes: ['stats:read'] });
    expect(added).to.have.keys('error', 'id', 'key');
    expect(added.error).to.equal(0);
    expect(added.key).to.match(/^lqr_[A-Za-z0-9_-]{43}$/);
    const res = await client(app.url, apiKey).get<KeyList>('/api/keys');
    expect(res.text).not.to.include(added.key);
    expect(res.text).not.to.include(hashApiKey(added.key));
    const [first, second] = res.body.data.keys;
    expect(res.body.data.result).to.equal(2);
    expect(first).to.deep.include({
      id: 0,
      name: 'default',
      prefix: apiKey.slice(0, 12),
      scopes: ['*'],
      expires: null,
      previous: null,
    });
    expect(second).to.deep.include({
      id: added.id,
      name: 'reports',
      prefix: added.key.slice(0, 12),
      scopes: ['stats:read'],
      lastused: null,
      expires: null,
      previous: null,
    });
    expect(second!.created).to.match(DATE_TIME);
  });

  it('keeps the default key working with every scope', async () => {
    const { apiKey } = await createTestUser();
    expect((await account(app, apiKey)).status).to.equal(200);
    const res = await client(app.url, apiKey).post('/api/keys/add', { name: 'x', scopes: ['*'] });
    expect(res.status).to.equal(200);
  });

  it('refuses a key without the scope with 403 naming it; write implies read', async () => {
    const { apiKey } = await createTestUser();
    const reader = (await addKey(apiKey, { name: 'r', scopes: ['links:read'] })).key;
    const writer = (await addKey(apiKey, { name: 'w', scopes: ['links:write'] })).key;
    expect((await client(app.url, reader).get('/api/urls')).status).to.equal(200);
    const refused = await client(app.url, reader).post('/api/url/add', { url: 'https://a.test' });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal(
      failure('Forbidden: this key lacks the scope links:write', 'insufficient_scope'),
    );
    expect((await client(app.url, writer).get('/api/urls')).status).to.equal(200);
    const added = await client(app.url, writer).post('/api/url/add', { url: 'https://a.test' });
    expect(added.status, added.text).to.equal(200);
    const keys = await client(app.url, writer).get('/api/keys');
    expect(keys.body).to.deep.equal(
      failure('Forbidden: this key lacks the scope keys:read', 'insufficient_scope'),
    );
  });

  it('refuses unknown scopes, a missing name and a past expiry with 422 naming the field', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const scopes = await api.post('/api/keys/add', { name: 'x', scopes: ['links:delete'] });
    expect(scopes.status).to.equal(422);
    expect(scopes.body).to.deep.include({
      error: 1,
      code: 'validation_failed',
      field: 'scopes.0',
    });
    const name = await api.post('/api/keys/add', { scopes: ['*'] });
    expect(name.body).to.deep.equal({
      ...failure('name is required', 'validation_failed'),
      field: 'name',
    });
    const past = await api.post('/api/keys/add', {
      name: 'x',
      scopes: ['*'],
      expires: '2001-01-01',
    });
    expect(past.status).to.equal(422);
    expect(past.body).to.deep.equal({
      ...failure('expires must be in the future', 'validation_failed'),
      field: 'expires',
    });
  });

  it('answers an expired key 401 in every process', async () => {
    const { apiKey } = await createTestUser();
    const { id, key } = await addKey(apiKey, { name: 'e', scopes: ['*'], expires: '2099-01-01' });
    await ApiKey.updateOne({ id }, { $set: { expires: new Date(Date.now() - 1000) } });
    for (const on of [app, other]) {
      const res = await account(on, key);
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal(failure('API key expired'));
    }
  });

  it('answers a key that expires while both processes hold it 401 in both, from the cache', async () => {
    const { apiKey } = await createTestUser();
    const expires = new Date(Date.now() + 3_000);
    const { key } = await addKey(apiKey, {
      name: 'soon',
      scopes: ['*'],
      expires: expires.toISOString(),
    });
    for (const on of [app, other]) {
      expect((await account(on, key)).status).to.equal(200);
      expect(isCached(on, key)).to.equal(true);
    }
    await new Promise((resolve) => setTimeout(resolve, expires.getTime() - Date.now() + 100));
    for (const on of [app, other]) {
      // Still held: the expiry is judged on every request, not only when the key is looked up.
      expect(isCached(on, key)).to.equal(true);
      const res = await account(on, key);
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal(failure('API key expired'));
    }
  });

  it('revokes a key at once in every process; the default key cannot be revoked', async () => {
    const { apiKey } = await createTestUser();
    const { id, key } = await addKey(apiKey, { name: 'zapier', scopes: ['links:write'] });
    for (const on of [app, other]) expect((await account(on, key)).status).to.equal(403);
    expect(isCached(other, key)).to.equal(true);
    const res = await client(app.url, apiKey).delete(`/api/key/${id}/delete`);
    expect(res.body).to.deep.equal({ error: 0, message: 'Key has been revoked.' });
    await eventually(async () => !isCached(other, key), 'the revocation reaches the process');
    for (const on of [app, other]) expect((await account(on, key)).body).to.deep.equal(invalid);
    expect((await account(app, apiKey)).status).to.equal(200);
    const again = await client(app.url, apiKey).delete(`/api/key/${id}/delete`);
    expect(again.status).to.equal(404);
    expect(again.body).to.deep.equal(failure('Key not found', 'not_found'));
    const byDefault = await client(app.url, apiKey).delete('/api/key/0/delete');
    expect(byDefault.status).to.equal(422);
    expect(byDefault.body).to.deep.equal(
      failure('The default key cannot be revoked: rotate it instead', 'validation_failed'),
    );
  });

  it("never reaches another user's key", async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const { id, key } = await addKey(a.apiKey, { name: 'a', scopes: ['*'] });
    const res = await client(app.url, b.apiKey).delete(`/api/key/${id}/delete`);
    expect(res.status).to.equal(404);
    const rotate = await client(app.url, b.apiKey).post(`/api/key/${id}/rotate`, {});
    expect(rotate.status).to.equal(404);
    expect((await account(app, key)).status).to.equal(200);
    expect((await keysOf(b.apiKey)).map((k) => k.id)).to.deep.equal([0]);
  });

  it('moves lastused when a key is used, at most once a minute', async () => {
    const { apiKey } = await createTestUser();
    const { id, key } = await addKey(apiKey, { name: 'used', scopes: ['account:read'] });
    expect((await account(app, key)).status).to.equal(200);
    await keyUsageFor(app.deps).flush();
    const first = await ApiKey.findOne({ id }).lean();
    expect(first?.lastused).to.be.instanceOf(Date);
    const listed = (await keysOf(apiKey)).find((k) => k.id === id);
    expect(listed?.lastused).to.match(DATE_TIME);
    // Within the minute, another use writes nothing.
    expect((await account(app, key)).status).to.equal(200);
    await keyUsageFor(app.deps).flush();
    const second = await ApiKey.findOne({ id }).lean();
    expect(second?.lastused?.getTime()).to.equal(first?.lastused?.getTime());
    // The default key's use is recorded too, by the batch written after the answer.
    expect((await account(app, apiKey)).status).to.equal(200);
    await eventually(
      async () => (await keysOf(apiKey)).find((k) => k.id === 0)?.lastused !== null,
      'the default key is recorded as used',
    );
  });
});

describe('keys from a dashboard session', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('asks for the current password to add or rotate a key, as for other account changes', async () => {
    const owner = await createDashboardUser();
    const session = await signedIn(app.url, owner);
    const body = { name: 'from the dashboard', scopes: ['links:read'] };
    const missing = await session.api('POST', '/keys/add', body);
    expect(missing.status).to.equal(422);
    expect(missing.body).to.deep.include({ error: 1, code: 'validation_failed', field: 'current' });
    const wrong = await session.api('POST', '/keys/add', { ...body, current: 'not it at all' });
    expect(wrong.body).to.deep.include({ code: 'validation_failed', field: 'current' });
    const added = await session.api<{ id: number; key: string }>('POST', '/keys/add', {
      ...body,
      current: TEST_PASSWORD,
    });
    expect(added.status, added.text).to.equal(200);
    const rotate = await session.api('POST', `/key/${added.body.id}/rotate`, {});
    expect(rotate.body).to.deep.include({ code: 'validation_failed', field: 'current' });
    const rotated = await session.api('POST', `/key/${added.body.id}/rotate`, {
      current: TEST_PASSWORD,
    });
    expect(rotated.status, rotated.text).to.equal(200);
    // A key needs no password: it is the account's whole credential already.
    const byKey = await client(app.url, owner.apiKey).post('/api/keys/add', body);
    expect(byKey.status).to.equal(200);
  });
});

describe('key rotation with a grace period', () => {
  let app: TestApp;
  let other: TestApp;
  before(async () => {
    app = await startTestApp();
    other = await startTestApp();
    await apiKeyCacheFor(app.deps).whenLive();
    await apiKeyCacheFor(other.deps).whenLive();
  });
  after(async () => {
    await app.close();
    await other.close();
  });

  const account = (on: TestApp, key: string) => request(on.url, '/api/account', { key });
  type Rotated = { error: number; id: number; key: string; previousuntil: string | null };

  it('keeps both keys working during the grace and lists when the old one stops', async () => {
    const { apiKey } = await createTestUser();
    const added = await client(app.url, apiKey).post<{ id: number; key: string }>('/api/keys/add', {
      name: 'zapier',
      scopes: ['account:read'],
    });
    const old = added.body.key;
    expect((await account(other, old)).status).to.equal(200);
    const res = await client(app.url, apiKey).post<Rotated>(`/api/key/${added.body.id}/rotate`, {
      grace: 3600,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.id).to.equal(added.body.id);
    expect(res.body.previousuntil).to.match(DATE_TIME);
    for (const on of [app, other]) {
      expect((await account(on, old)).status).to.equal(200);
      expect((await account(on, res.body.key)).status).to.equal(200);
    }
    const list = await client(app.url, apiKey).get<KeyList>('/api/keys');
    const row = list.body.data.keys.find((k) => k.id === added.body.id);
    expect(row?.prefix).to.equal(res.body.key.slice(0, 12));
    expect(row?.previous).to.deep.equal({
      prefix: old.slice(0, 12),
      until: res.body.previousuntil,
    });
  });

  it('ends the grace: the old key answers 401 once it has passed, in every process', async () => {
    const { apiKey } = await createTestUser();
    const res = await client(app.url, apiKey).post<Rotated>('/api/key/0/rotate', { grace: 1 });
    expect(res.status, res.text).to.equal(200);
    for (const on of [app, other]) expect((await account(on, apiKey)).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    for (const on of [app, other]) {
      const refused = await account(on, apiKey);
      expect(refused.status).to.equal(401);
      expect(refused.body).to.deep.equal(
        failure('API key replaced: its rotation grace period ended'),
      );
      expect((await account(on, res.body.key)).status).to.equal(200);
    }
  });

  it('without grace, the old key stops at once; grace is capped at a week', async () => {
    const { apiKey } = await createTestUser();
    const long = await client(app.url, apiKey).post('/api/key/0/rotate', { grace: 604801 });
    expect(long.status).to.equal(422);
    expect(long.body).to.deep.include({ code: 'validation_failed', field: 'grace' });
    const res = await client(app.url, apiKey).post<Rotated>('/api/key/0/rotate', {});
    expect(res.body.previousuntil).to.equal(null);
    expect((await account(app, apiKey)).body).to.deep.equal(invalid);
    expect((await account(app, res.body.key)).status).to.equal(200);
  });

  it('rotates a named key from the CLI with a grace period', async () => {
    const { user, apiKey } = await createTestUser();
    const added = await client(app.url, apiKey).post<{ id: number; key: string }>('/api/keys/add', {
      name: 'cli',
      scopes: ['account:read'],
    });
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'key:rotate',
        '--user',
        String(user.id),
        '--key',
        String(added.body.id),
        '--grace',
        '600',
      ],
      { cwd: root, env: { ...process.env, ...baseEnv(), LOG_LEVEL: 'warn' } },
    );
    const printed = JSON.parse(stdout) as { key: number; apiKey: string; previousUntil: string };
    expect(printed.key).to.equal(added.body.id);
    expect(new Date(printed.previousUntil).getTime()).to.be.greaterThan(Date.now());
    expect((await account(app, added.body.key)).status).to.equal(200);
    expect((await account(app, printed.apiKey)).status).to.equal(200);
  });
});
