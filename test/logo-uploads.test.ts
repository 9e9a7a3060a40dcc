import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LOGO_UPLOAD_QUOTA } from '../src/qr-codes/logo/logo-uploads';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn } from './support/dashboard';
import { client } from './support/http';
import { solidLogo } from './support/qr';
import { createTestUser } from './support/users';

/** Issue 29, L5: dashboard logo uploads have a quota and go with the account. */
describe('dashboard logo uploads', () => {
  let app: TestApp;
  let logoDir: string;
  before(async () => {
    logoDir = await mkdtemp(path.join(tmpdir(), 'linkqr-upload-quota-'));
    app = await startTestApp({ LOGO_DIR: logoDir });
  });
  after(() => app.close());

  it('keeps at most the quota per account, the oldest unused going first, and deletes them with the user', async () => {
    const owner = await createDashboardUser();
    const dash = await signedIn(app.url, owner);
    const png = await solidLogo({ r: 10, g: 20, b: 30 });
    for (let i = 0; i <= LOGO_UPLOAD_QUOTA; i += 1) {
      const res = await dash.send('/app/api/dashboard/logo', {
        method: 'POST',
        rawBody: png as unknown as string,
        headers: { 'content-type': 'image/png', 'x-csrf-token': dash.csrf },
      });
      expect(res.status, res.text).to.equal(200);
    }
    const dir = path.join(logoDir, 'uploads', String(owner.user.id));
    expect(await readdir(dir)).to.have.length(LOGO_UPLOAD_QUOTA);
    const admin = await createTestUser({ admin: true });
    const del = await client(app.url, admin.apiKey).delete(`/api/user/${owner.user.id}/delete`);
    expect(del.status).to.equal(200);
    const left = await readdir(dir).catch(() => null);
    expect(left).to.equal(null);
  });
});
