import { expect } from 'chai';
import { AuditEntry } from '../src/audit/audit.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn, type DashboardClient } from './support/dashboard';
import { client } from './support/http';
import { createLink } from './support/links';
import { insertQrCode } from './support/channels';
import { uniqueName, type TestUser } from './support/users';

/** Issue 23: the dashboard's account switcher, its pages, and the account its calls act in. */
describe('dashboard account switcher and the Keys, Team and Audit log pages', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  /** `member` joins `owner`'s account with `role`; answers the membership id. */
  async function join(owner: TestUser, member: TestUser, role = 'editor'): Promise<number> {
    const res = await client(app.url, owner.apiKey).post<{ id: number }>('/api/team/add', {
      username: member.user.username,
      role,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.id;
  }

  const actingMeta = (html: string) =>
    /<meta name="linkqr-account" content="(\d+)" \/>/.exec(html)?.[1] ?? null;

  async function switchTo(session: DashboardClient, account: string, back = '/app/links') {
    return session.form('/app/switch', { account, back });
  }

  it('serves the three pages with their data, and the switcher only to a member of another account', async () => {
    const owner = await createDashboardUser();
    const session = await signedIn(app.url, owner);
    for (const [path, view] of [
      ['/app/keys', 'keys'],
      ['/app/team', 'team'],
      ['/app/audit', 'audit'],
    ] as const) {
      const res = await session.send(path);
      expect(res.status, path).to.equal(200);
      expect(res.text).to.include(`data-view="${view}"`);
      expect(res.text).not.to.include('action="/app/switch"');
    }
    const keys = await session.send('/app/keys');
    expect(keys.text).to.include('"maxGrace":604800');
    const audit = await session.send('/app/audit');
    expect(audit.text).to.match(/"types":\[[^\]]*"link"[^\]]*\]/);
    expect(audit.text).to.include(`"${owner.user.id}":"${owner.user.username}"`);

    const other = await createDashboardUser();
    await join(other, owner);
    const links = await session.send('/app/links');
    expect(links.text).to.include('action="/app/switch"');
    expect(links.text).to.include(`value="${other.user.id}"`);
    expect(actingMeta(links.text)).to.equal(null);
  });

  it('acts in the chosen account: its record pages open, the client is told the account, the choice is not audited', async () => {
    const owner = await createDashboardUser();
    const member = await createDashboardUser();
    await join(owner, member, 'viewer');
    const link = await createLink(app, owner.apiKey, { url: 'https://example.com/owned' });
    const session = await signedIn(app.url, member);
    expect((await session.send(`/app/links/${link.id}`)).status).to.equal(404);

    const res = await switchTo(session, String(owner.user.id), `/app/links/${link.id}`);
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal(`/app/links/${link.id}`);
    const page = await session.send(`/app/links/${link.id}`);
    expect(page.status).to.equal(200);
    expect(actingMeta(page.text)).to.equal(String(owner.user.id));
    // Switching from a record goes back to its section: the record is not in the other account.
    expect(page.text).to.include('name="back" value="/app/links"');

    // A viewer's audit page carries no names: the API refuses them the log anyway.
    const audit = await session.send('/app/audit');
    expect(audit.text).to.include('"people":{}');
    const own = await session.api('GET', '/audit');
    expect(own.status).to.equal(200); // without the header: the member's own log
    const asOwner = await session.send('/app/api/audit', {
      headers: { 'x-csrf-token': session.csrf, 'linkqr-account': String(owner.user.id) },
    });
    expect(asOwner.status).to.equal(403);
    expect(asOwner.body).to.deep.include({
      error: 1,
      code: 'insufficient_role',
      message: 'Forbidden: the viewer role cannot use account:read',
    });

    const back = await switchTo(session, '');
    expect(back.status).to.equal(303);
    expect(actingMeta((await session.send('/app/links')).text)).to.equal(null);
    expect((await session.send(`/app/links/${link.id}`)).status).to.equal(404);
    const switches = await AuditEntry.countDocuments({ actorId: member.user.id });
    expect(switches).to.equal(0);
  });

  it('refuses an account the user is not a member of (403) and a malformed one (422)', async () => {
    const user = await createDashboardUser();
    const stranger = await createDashboardUser();
    const session = await signedIn(app.url, user);
    const refused = await switchTo(session, String(stranger.user.id));
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include(`You are not a member of account ${stranger.user.id}`);
    const malformed = await switchTo(session, 'abc');
    expect(malformed.status).to.equal(422);
    expect(malformed.text).to.include('account must be the id of an account');
    expect(actingMeta((await session.send('/app/links')).text)).to.equal(null);
  });

  it('never shows another account’s records on any page, acting in an account or in one’s own', async () => {
    const marker = uniqueName('bola');
    const a = await createDashboardUser();
    const b = await createDashboardUser();
    const member = await createDashboardUser();
    await join(a, member, 'admin');
    const link = await createLink(app, b.apiKey, { url: `https://example.com/${marker}` });
    const qr = await insertQrCode(b.user.id, marker);
    const key = await client(app.url, b.apiKey).post('/api/keys/add', {
      name: marker,
      scopes: ['links:read'],
    });
    expect(key.status, key.text).to.equal(200);
    const session = await signedIn(app.url, member);
    const pages = [
      '/app/links',
      '/app/links/new',
      '/app/qr',
      '/app/qr/new',
      '/app/keys',
      '/app/team',
      '/app/audit',
      '/app/security',
      '/app/account',
      '/app/import',
    ];
    for (const acting of [String(a.user.id), '']) {
      expect((await switchTo(session, acting)).status).to.equal(303);
      for (const path of pages) {
        const res = await session.send(path);
        expect(res.status, `${path}: ${res.text.slice(0, 200)}`).to.equal(200);
        expect(res.text, path).not.to.include(marker);
      }
      for (const path of [`/app/links/${link.id}`, `/app/qr/${qr.id}`]) {
        const res = await session.send(path);
        expect(res.status, path).to.equal(404);
        expect(res.text, path).not.to.include(marker);
      }
    }
  });

  it('refuses a switch without the CSRF token (403) and never redirects off the dashboard', async () => {
    const owner = await createDashboardUser();
    const member = await createDashboardUser();
    await join(owner, member);
    const session = await signedIn(app.url, member);
    const forged = await session.form(
      '/app/switch',
      { account: String(owner.user.id), back: '/app/links' },
      false,
    );
    expect(forged.status).to.equal(403);
    expect(actingMeta((await session.send('/app/links')).text)).to.equal(null);
    const away = await switchTo(session, String(owner.user.id), 'https://evil.example/');
    expect(away.status).to.equal(303);
    expect(away.headers.get('location')).to.equal('/app/links');
  });

  it('puts a removed member back in their own account at the next page; a stale header is refused', async () => {
    const owner = await createDashboardUser();
    const member = await createDashboardUser();
    const membership = await join(owner, member);
    const session = await signedIn(app.url, member);
    await switchTo(session, String(owner.user.id));
    expect(actingMeta((await session.send('/app/links')).text)).to.equal(String(owner.user.id));

    const removed = await client(app.url, owner.apiKey).delete(`/api/team/${membership}/delete`);
    expect(removed.status).to.equal(200);
    const stale = await session.send('/app/api/urls', {
      headers: { 'x-csrf-token': session.csrf, 'linkqr-account': String(owner.user.id) },
    });
    expect(stale.status).to.equal(403);
    expect(stale.body).to.deep.include({
      error: 1,
      message: `Forbidden: you are not a member of account ${owner.user.id}`,
    });
    const page = await session.send('/app/links');
    expect(actingMeta(page.text)).to.equal(null);
    expect(page.text).not.to.include('action="/app/switch"');
  });
});
