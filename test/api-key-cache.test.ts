import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { generateApiKey, hashApiKey } from '../src/shared/secrets';
import { apiKeyCacheFor } from '../src/users/api-key-cache';
import { deleteUser, rotateApiKey } from '../src/users/users.service';
import { startTestApp, type TestApp } from './support/app-harness';
import { baseEnv } from './support/environment';
import { client, request } from './support/http';
import { eventually } from './support/links';
import { createTestUser } from './support/users';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');
const invalid = { error: 1, message: 'Invalid API key', code: 'unauthorized' };

describe('API keys cached across API processes', () => {
  let app: TestApp;
  let other: TestApp;
  before(async () => {
    // A clock that stands still: what a test sees in the caches never depends on how slow it runs.
    const cacheClock = { now: () => 1_000_000 };
    app = await startTestApp({}, { cacheClock });
    other = await startTestApp({}, { cacheClock });
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

  it('serves a known key from memory once it has been seen', async () => {
    const { apiKey } = await createTestUser();
    expect(isCached(app, apiKey)).to.equal(false);
    expect((await account(app, apiKey)).status).to.equal(200);
    expect(isCached(app, apiKey)).to.equal(true);
  });

  it('refuses the old key everywhere as soon as the key is rotated by the CLI, another process', async () => {
    const { user, apiKey } = await createTestUser();
    expect((await account(app, apiKey)).status).to.equal(200);
    expect((await account(other, apiKey)).status).to.equal(200);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'key:rotate', '--user', String(user.id)],
      { cwd: root, env: { ...process.env, ...baseEnv(), LOG_LEVEL: 'warn' } },
    );
    const fresh = (JSON.parse(stdout) as { apiKey: string }).apiKey;
    for (const on of [app, other]) {
      await eventually(async () => !isCached(on, apiKey), 'the rotation reaches the process');
      const old = await account(on, apiKey);
      expect(old.status).to.equal(401);
      expect(old.body).to.deep.equal(invalid);
      expect((await account(on, fresh)).status).to.equal(200);
    }
  });

  it('refuses the old key in the other process when one process rotates it', async () => {
    const { user, apiKey } = await createTestUser();
    expect((await account(other, apiKey)).status).to.equal(200);
    const { apiKey: fresh } = await rotateApiKey(user.id, apiKeyCacheFor(app.deps));
    await eventually(async () => !isCached(other, apiKey), 'the rotation reaches the process');
    expect((await account(other, apiKey)).body).to.deep.equal(invalid);
    expect((await account(other, fresh)).status).to.equal(200);
  });

  it('refuses the key of a deleted user in every process', async () => {
    const { user, apiKey } = await createTestUser();
    expect((await account(other, apiKey)).status).to.equal(200);
    await deleteUser(user.id, apiKeyCacheFor(app.deps));
    await eventually(async () => !isCached(other, apiKey), 'the deletion reaches the process');
    const res = await account(other, apiKey);
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(invalid);
  });

  it('shows an account change made through one process in the other', async () => {
    const { apiKey, user } = await createTestUser();
    expect((await account(other, apiKey)).body).to.deep.include({ error: 0 });
    const email = `changed-${user.username}@example.test`;
    const res = await client(app.url, apiKey).put('/api/account/update', { email });
    expect(res.status, res.text).to.equal(200);
    await eventually(async () => !isCached(other, apiKey), 'the change reaches the process');
    const after = await account(other, apiKey);
    expect((after.body as { data: { email: string } }).data.email).to.equal(email);
  });

  it('keeps known keys through a flood of unknown ones', async function () {
    // 1,200 requests one after another: seconds on an idle machine, more on a busy one.
    this.timeout(120_000);
    const { apiKey } = await createTestUser();
    await account(app, apiKey);
    for (let i = 0; i < 1_200; i += 1) {
      // A known key is one in use: touched now and then, so the cache's 10 s TTL cannot end it
      // however slowly a busy machine serves the flood; the last 200 unknown keys come after.
      if (i % 100 === 0 && i <= 1_000) await account(app, apiKey);
      const res = await account(app, generateApiKey());
      if (res.status !== 401) throw new Error(`unknown key answered ${res.status}`);
    }
    const { found, missing } = apiKeyCacheFor(app.deps).size;
    expect(missing).to.equal(1_000);
    expect(found).to.be.greaterThan(0);
    expect(isCached(app, apiKey)).to.equal(true);
  });
});
