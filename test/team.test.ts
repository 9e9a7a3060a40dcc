import { expect } from 'chai';
import { createApp } from '../src/app';
import { registeredRoutes, type RegisteredRoute } from '../src/openapi/route-walk';
import { startTestApp, type TestApp } from './support/app-harness';
import { createCampaign } from './support/campaigns';
import { createChannel, insertQrCode } from './support/channels';
import { client, sweepRequest } from './support/http';
import { createLink, eventually } from './support/links';
import { createTestUser, uniqueName, type TestUser } from './support/users';

const as = (account: number) => ({ headers: { 'linkqr-account': String(account) } });

describe('team members acting in an account', () => {
  let app: TestApp;
  before(async () => {
    // The BOLA sweep gives B a webhook and an import, both at a closed local port: never reached.
    app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', IMPORT_ALLOW_PRIVATE: 'true' });
  });
  after(() => app.close());

  async function addMember(owner: TestUser, member: TestUser, role: string) {
    const res = await client(app.url, owner.apiKey).post<{ id: number }>('/api/team/add', {
      username: member.user.username,
      role,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.id;
  }

  it('lets a viewer read the owner’s links and refuses writes naming the role', async () => {
    const owner = await createTestUser();
    const viewer = await createTestUser();
    const link = await createLink(app, owner.apiKey, { url: 'https://example.com/owned' });
    await addMember(owner, viewer, 'viewer');
    const api = client(app.url, viewer.apiKey);
    const read = await api.get<{ data: { urls: { id: number }[] } }>(
      '/api/urls',
      as(owner.user.id),
    );
    expect(read.status, read.text).to.equal(200);
    expect(read.body.data.urls.map((u) => u.id)).to.deep.equal([link.id]);
    const own = await api.get<{ data: { urls: unknown[] } }>('/api/urls');
    expect(own.body.data.urls).to.deep.equal([]);
    const write = await api.put(
      `/api/url/${link.id}/update`,
      { url: 'https://example.com/x' },
      as(owner.user.id),
    );
    expect(write.status).to.equal(403);
    expect(write.body).to.deep.equal({
      error: 1,
      message: 'Forbidden: the viewer role cannot use links:write',
      code: 'insufficient_role',
    });
    const keys = await api.get('/api/keys', as(owner.user.id));
    expect(keys.body).to.deep.include({ code: 'insufficient_role' });
  });

  it('lets an editor write links in the owner’s account, recorded as the member; not the team', async () => {
    const owner = await createTestUser();
    const editor = await createTestUser();
    const link = await createLink(app, owner.apiKey, { url: 'https://example.com/before' });
    await addMember(owner, editor, 'editor');
    const named = await client(app.url, editor.apiKey).post<{ id: number; key: string }>(
      '/api/keys/add',
      { name: 'editing', scopes: ['links:write'] },
    );
    const api = client(app.url, named.body.key);
    const res = await api.put(
      `/api/url/${link.id}/update`,
      { url: 'https://example.com/after' },
      as(owner.user.id),
    );
    expect(res.status, res.text).to.equal(200);
    const created = await api.post<{ id: number }>(
      '/api/url/add',
      { url: 'https://example.com/new' },
      as(owner.user.id),
    );
    expect(created.status, created.text).to.equal(200);
    const ownerList = await client(app.url, owner.apiKey).get<{ data: { urls: { id: number }[] } }>(
      '/api/urls',
    );
    expect(ownerList.body.data.urls.map((u) => u.id)).to.include(created.body.id);
    // The member's key scopes still apply on top of the role.
    const pixels = await api.get('/api/pixels', as(owner.user.id));
    expect(pixels.body).to.deep.include({ code: 'insufficient_scope' });
    const team = await client(app.url, editor.apiKey).post(
      '/api/team/add',
      { username: editor.user.username, role: 'admin' },
      as(owner.user.id),
    );
    expect(team.body).to.deep.equal({
      error: 1,
      message: 'Forbidden: the editor role cannot use account:write',
      code: 'insufficient_role',
    });
    let entry: Record<string, unknown> | undefined;
    await eventually(async () => {
      const audit = await client(app.url, owner.apiKey).get<{
        data: { entries: Record<string, unknown>[] };
      }>(`/api/audit?type=link&id=${link.id}`);
      entry = audit.body.data.entries.find((e) => e.method === 'PUT');
      return entry !== undefined;
    }, 'the update is in the audit log');
    expect(entry).to.deep.include({
      account: owner.user.id,
      user: editor.user.id,
      key: named.body.id,
      changes: { url: 'https://example.com/after' },
    });
  });

  it('ends access at once when the member is removed, and applies a role change at once', async () => {
    const owner = await createTestUser();
    const member = await createTestUser();
    const id = await addMember(owner, member, 'viewer');
    const api = client(app.url, member.apiKey);
    expect((await api.get('/api/urls', as(owner.user.id))).status).to.equal(200);
    const update = await client(app.url, owner.apiKey).put(`/api/team/${id}/update`, {
      role: 'editor',
    });
    expect(update.body).to.deep.equal({
      error: 0,
      message: 'Member has been successfully updated.',
    });
    const add = await api.post('/api/url/add', { url: 'https://example.com/e' }, as(owner.user.id));
    expect(add.status, add.text).to.equal(200);
    const list = await client(app.url, owner.apiKey).get<{
      data: { members: { id: number; userid: number; username: string; role: string }[] };
    }>('/api/team');
    expect(list.body.data.members).to.have.length(1);
    expect(list.body.data.members[0]).to.deep.include({
      id,
      userid: member.user.id,
      username: member.user.username,
      role: 'editor',
    });
    const removed = await client(app.url, owner.apiKey).delete(`/api/team/${id}/delete`);
    expect(removed.body).to.deep.equal({ error: 0, message: 'Member has been removed.' });
    const after = await api.get('/api/urls', as(owner.user.id));
    expect(after.status).to.equal(403);
    expect(after.body).to.deep.equal({
      error: 1,
      message: `Forbidden: you are not a member of account ${owner.user.id}`,
      code: 'forbidden',
    });
  });

  it('refuses a malformed header, an unknown user, oneself and a second membership', async () => {
    const owner = await createTestUser();
    const member = await createTestUser();
    const bad = await client(app.url, member.apiKey).get('/api/urls', {
      headers: { 'linkqr-account': 'abc' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.include({ code: 'bad_request' });
    const api = client(app.url, owner.apiKey);
    const unknown = await api.post('/api/team/add', {
      username: uniqueName('nobody'),
      role: 'viewer',
    });
    expect(unknown.status).to.equal(422);
    expect(unknown.body).to.deep.include({ code: 'validation_failed', field: 'username' });
    const self = await api.post('/api/team/add', { username: owner.user.username, role: 'admin' });
    expect(self.body).to.deep.include({ code: 'validation_failed', field: 'username' });
    await addMember(owner, member, 'viewer');
    const twice = await api.post('/api/team/add', {
      username: member.user.username,
      role: 'admin',
    });
    expect(twice.status).to.equal(409);
    const role = await api.post('/api/team/add', { username: member.user.username, role: 'boss' });
    expect(role.body).to.deep.include({ code: 'validation_failed', field: 'role' });
  });

  describe('BOLA sweep: every route, against an account the member does not belong to', () => {
    const marker = `bola-${uniqueName('m')}`;
    let member: TestUser;
    let a: TestUser;
    let b: TestUser;
    const ids: Record<string, number> = {};
    let routes: RegisteredRoute[];

    before(async () => {
      a = await createTestUser();
      b = await createTestUser();
      member = await createTestUser();
      await addMember(a, member, 'admin');
      ids.link = (await createLink(app, b.apiKey, { url: `https://example.com/${marker}` })).id;
      ids.campaign = (await createCampaign(app, b.apiKey, { name: marker })).id;
      ids.channel = (await createChannel(app, b.apiKey, { name: marker })).id;
      ids.qr = (await insertQrCode(b.user.id, marker)).id;
      const pixel = await client(app.url, b.apiKey).post<{ id: number }>('/api/pixel/add', {
        type: 'gtmpixel',
        name: marker,
        tag: 'GTM-ABC123',
      });
      ids.pixel = pixel.body.id;
      // Every other kind a route names by id, so no `:id` is probed with a number of another kind.
      const api = client(app.url, b.apiKey);
      const added = async (path: string, body: Record<string, unknown>) => {
        const res = await api.post<{ id: number }>(path, body);
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
        return res.body.id;
      };
      ids.domain = await added('/api/domain/add', { domain: `https://${marker}.example.test` });
      ids.overlay = await added('/api/overlay/add', {
        name: marker,
        type: 'message',
        message: marker,
      });
      ids.splash = await added('/api/splash/add', { name: marker, title: marker });
      ids.webhook = await added('/api/webhook/add', {
        url: `http://127.0.0.1:9/${marker}`,
        events: ['link.created'],
      });
      ids.bio = await added('/api/bio/add', { name: marker, alias: uniqueName('bola') });
      ids.key = await added('/api/keys/add', { name: marker, scopes: ['links:read'] });
      ids.team = await added('/api/team/add', {
        username: (await createTestUser()).user.username,
        role: 'viewer',
      });
      ids.import = await added('/api/import', {
        source: 'shlink',
        url: `http://127.0.0.1:9/${marker}`,
        key: marker,
      });
      routes = registeredRoutes(createApp(app.deps)).filter(
        (r) => r.path.startsWith('/api/') && !r.doc?.public,
      );
    });

    /** The path with B's records in every parameter. */
    function pathOf(route: RegisteredRoute): string {
      const segment = route.path.split('/')[2] ?? '';
      const kind = segment.startsWith('url') ? 'link' : segment;
      return route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
        if (name === 'type') return 'links';
        if (name === 'linkid' || name === 'itemid') return String(ids.link);
        if (name === 'campaignid') return String(ids.campaign);
        if (name === 'channelid') return String(ids.channel);
        return String(ids[kind] ?? ids.link);
      });
    }

    const call = (route: RegisteredRoute, headers: Record<string, string>) =>
      sweepRequest(app.url, pathOf(route), {
        key: member.apiKey,
        method: route.method.toUpperCase(),
        headers,
        ...(['post', 'put', 'patch'].includes(route.method) ? { body: {} } : {}),
      });

    it('refuses every route with Linkqr-Account naming B', async function () {
      this.timeout(60_000);
      const leaks: string[] = [];
      for (const route of routes) {
        const res = await call(route, { 'linkqr-account': String(b.user.id) });
        if (res.status !== 403 || res.text.includes(marker)) {
          leaks.push(`${route.method.toUpperCase()} ${pathOf(route)}: ${res.status} ${res.text}`);
        }
      }
      expect(leaks, leaks.join('\n')).to.deep.equal([]);
    });

    it('never reaches B’s records acting in A (or in the member’s own account)', async function () {
      this.timeout(60_000);
      const leaks: string[] = [];
      const headerSets: Record<string, string>[] = [{ 'linkqr-account': String(a.user.id) }, {}];
      for (const headers of headerSets) {
        for (const route of routes) {
          const res = await call(route, headers);
          const named = route.path.includes(':');
          if (res.text.includes(marker) || (named && res.status < 300)) {
            leaks.push(`${route.method.toUpperCase()} ${pathOf(route)}: ${res.status} ${res.text}`);
          }
        }
      }
      expect(leaks, leaks.join('\n')).to.deep.equal([]);
      for (const path of [
        `/api/url/${ids.link}`,
        `/api/qr/${ids.qr}`,
        `/api/import/${ids.import}`,
      ]) {
        expect((await client(app.url, b.apiKey).get(path)).status, path).to.equal(200);
      }
      // Nothing of B's was changed or removed by the writes above.
      const lists: [string, string, number | undefined][] = [
        ['/api/domains', 'domains', ids.domain],
        ['/api/overlay', 'cta', ids.overlay],
        ['/api/splash', 'splash', ids.splash],
        ['/api/webhooks', 'webhooks', ids.webhook],
        ['/api/bio', 'bios', ids.bio],
        ['/api/keys', 'keys', ids.key],
        ['/api/team', 'members', ids.team],
        ['/api/campaigns', 'campaigns', ids.campaign],
        ['/api/channels', 'channels', ids.channel],
        ['/api/pixels', 'pixels', ids.pixel],
      ];
      for (const [path, field, id] of lists) {
        const res = await client(app.url, b.apiKey).get<{ data: Record<string, { id: number }[]> }>(
          path,
        );
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
        expect(
          res.body.data[field]?.map((r) => r.id),
          path,
        ).to.include(id);
      }
    });
  });
});
