import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app-harness';
import { client, request } from '../support/http';
import { createLink, submitPassword } from '../support/links';
import { aliasOf } from '../support/qr';
import { createTestUser } from '../support/users';
import { drainVisits } from '../support/visits';
import { listVisits } from '../../src/visits/visits.service';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('visitor routes under abuse (issue 11)', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp();
    key = (await createTestUser()).apiKey;
  });
  after(() => app.close());

  it('never counts a HEAD request, on /s/ or /<alias>', async () => {
    const api = client(app.url, key);
    const qr = await api.post<{ id: number; link: string }>('/api/qr/add', {
      type: 'link',
      data: 'https://example.com/qr',
    });
    expect(qr.status, qr.text).to.equal(200);
    const link = await createLink(app, key, { url: 'https://example.com/link' });
    const browser = { 'user-agent': CHROME };
    for (let i = 0; i < 5; i += 1) {
      const scan = await request(app.url, `/s/${aliasOf(qr.body.link)}`, {
        method: 'HEAD',
        headers: browser,
      });
      expect(scan.status).to.equal(302);
      const click = await request(app.url, `/${link.alias}`, { method: 'HEAD', headers: browser });
      expect(click.status).to.equal(302);
    }
    await drainVisits(app);
    expect(await listVisits({ kind: 'qr', id: qr.body.id })).to.have.length(0);
    expect(await listVisits({ kind: 'link', id: link.id })).to.have.length(0);
  });

  it('lets exactly 10 of 50 parallel wrong passwords through to the check, the rest 429', async () => {
    const link = await createLink(app, key, {
      url: 'https://example.com/s',
      password: 'pw-secret',
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => submitPassword(app, link.alias, `wrong${i}`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).to.have.length(10);
    expect(statuses.filter((s) => s === 429)).to.have.length(40);
    expect((await submitPassword(app, link.alias, 'pw-secret')).status).to.equal(429);
  });

  it('does not hold a right password against the limit', async () => {
    const link = await createLink(app, key, {
      url: 'https://example.com/ok',
      password: 'pw-secret',
    });
    for (let i = 0; i < 12; i += 1)
      expect((await submitPassword(app, link.alias, 'pw-secret')).status).to.equal(302);
  });
});
