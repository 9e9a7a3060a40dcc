import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { uploadImport } from './support/imports';
import { createTestUser, type TestUser } from './support/users';

const lacks = (scope: string) => ({
  error: 1,
  message: `Forbidden: this key lacks the scope ${scope}`,
  code: 'insufficient_scope',
});

const LINKQR_EXPORT = `${JSON.stringify({ format: 'linkqr-export', version: 1, source: 'https://old.example' })}\n`;

/**
 * An import creates links (and, from GemPixel or linkqr, QR codes, pixels, webhooks...): a key
 * needs the scopes creating them directly would need, not `imports:write` alone. No worker runs
 * here: an accepted import stays queued.
 */
describe('scopes an import needs beyond imports:write', () => {
  let app: TestApp;
  let owner: TestUser;
  before(async () => {
    // The sources' URLs are a closed local port: nothing is ever fetched from them.
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    owner = await createTestUser();
  });
  after(() => app.close());

  async function keyWith(...scopes: string[]) {
    const res = await client(app.url, owner.apiKey).post<{ key: string }>('/api/keys/add', {
      name: `import test (${scopes.length} scopes)`,
      scopes,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.key;
  }

  const fromShlink = (key: string) =>
    client(app.url, key).post<{ id: number }>('/api/import', {
      source: 'shlink',
      url: 'http://127.0.0.1:9',
      key: 'shlink-key',
    });

  it('refuses a key with imports:write alone, naming links:write, as JSON and as an upload', async () => {
    const key = await keyWith('imports:write');
    const json = await fromShlink(key);
    expect(json.status).to.equal(403);
    expect(json.body).to.deep.equal(lacks('links:write'));
    const upload = await uploadImport(app, key, 'url\nhttps://example.com/a\n');
    expect(upload.status).to.equal(403);
    expect(upload.body).to.deep.equal(lacks('links:write'));
    const imports = await client(app.url, owner.apiKey).get<{ data: { imports: unknown[] } }>(
      '/api/imports',
    );
    expect(imports.body.data.imports).to.deep.equal([]);
  });

  it('accepts a link import from a key with imports:write and links:write', async () => {
    const key = await keyWith('imports:write', 'links:write');
    const json = await fromShlink(key);
    expect(json.status, json.text).to.equal(200);
    const upload = await uploadImport(app, key, 'url\nhttps://example.com/a\n');
    expect(upload.status, upload.text).to.equal(200);
  });

  it('asks a linkqr import for the write scope of every kind it may bring, webhooks included', async () => {
    const links = await keyWith('imports:write', 'links:write');
    const refused = await uploadImport(app, links, LINKQR_EXPORT, { source: 'linkqr' });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal(lacks('qr:write'));
    const allButWebhooks = await keyWith(
      'imports:write',
      'links:write',
      'qr:write',
      'pixels:write',
      'splash:write',
      'overlays:write',
      'campaigns:write',
      'channels:write',
      'domains:write',
    );
    const noHooks = await uploadImport(app, allButWebhooks, LINKQR_EXPORT, { source: 'linkqr' });
    expect(noHooks.status).to.equal(403);
    expect(noHooks.body).to.deep.equal(lacks('webhooks:write'));
    const all = await uploadImport(app, await keyWith('*'), LINKQR_EXPORT, { source: 'linkqr' });
    expect(all.status, all.text).to.equal(200);
  });
});
