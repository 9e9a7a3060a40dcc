import { expect } from 'chai';
import { Link } from '../src/links/link.model';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { Pixel } from '../src/pixels/pixel.model';
import { Campaign } from '../src/campaigns/campaign.model';
import { Channel, ChannelItem } from '../src/channels/channel.model';
import { BrandedDomain } from '../src/domains/domain.model';
import { apiKeyCacheFor } from '../src/users/api-key-cache';
import { User } from '../src/users/user.model';
import { userAdmin, userCreate } from '../src/users/users.cli';
import { UsageError } from '../src/cli/args';
import { startTestApp, type TestApp } from './support/app-harness';
import { uniqueDomain } from './support/domains';
import { client, request, type TestResponse } from './support/http';
import { createLink, eventually, linkCacheLive, visit } from './support/links';
import { rejection } from './support/rejection';
import { createTestUser, uniqueName } from './support/users';
import { Webhook } from '../src/webhooks/webhook.model';

const PLANS = [
  { id: 1, name: 'free', maxLinks: 10 },
  { id: 2, name: 'pro', rateLimit: 100_000, maxLinks: 1000, maxQrCodes: 50, maxDomains: 5 },
];

interface AdminUser {
  id: number;
  email: string;
  username: string;
  avatar: string;
  status: string;
  planid: number | null;
  expires: string | null;
  registered: string;
  admin: boolean;
}

describe('admin API: plans and users', () => {
  let app: TestApp;
  let adminKey: string;
  let adminId: number;
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify(PLANS),
      PLAN_RATE_LIMITS: JSON.stringify({ test: 100_000, free: 77 }),
    });
    await linkCacheLive(app);
    const admin = await createTestUser({ admin: true });
    adminKey = admin.apiKey;
    adminId = admin.user.id;
  });
  after(() => app.close());

  /** Each admin route, called with the given key (undefined sends none). */
  function routes(key: string | undefined, targetId: number) {
    const api = client(app.url, key);
    return [
      ['GET /api/plans', () => api.get('/api/plans')],
      ['PUT /api/plan/2/user/:id', () => api.put(`/api/plan/2/user/${targetId}`, {})],
      ['GET /api/users', () => api.get('/api/users')],
      ['GET /api/user/:id', () => api.get(`/api/user/${targetId}`)],
      [
        'POST /api/user/add',
        () => {
          const username = uniqueName('added');
          return api.post('/api/user/add', {
            username,
            email: `${username}@example.test`,
            password: 'a long password',
          });
        },
      ],
      ['DELETE /api/user/:id/delete', () => api.delete(`/api/user/${targetId}/delete`)],
    ] as Array<[string, () => Promise<TestResponse>]>;
  }

  it('answers 403 on every admin route for a key that is not an administrator', async () => {
    const { apiKey } = await createTestUser();
    const target = await createTestUser();
    for (const [route, call] of routes(apiKey, target.user.id)) {
      const res = await call();
      expect(res.status, route).to.equal(403);
      expect(res.body, route).to.deep.include({
        error: 1,
        message: "Forbidden: this endpoint needs an administrator's API key",
      });
      expect(res.headers.get('x-ratelimit-limit'), route).to.be.a('string');
    }
    expect(await User.exists({ id: target.user.id })).to.not.equal(null);
  });

  it('answers 401 on every admin route without a key', async () => {
    const target = await createTestUser();
    for (const [route, call] of routes(undefined, target.user.id)) {
      const res = await call();
      expect(res.status, route).to.equal(401);
      expect(res.body, route).to.deep.include({
        error: 1,
        message: 'Missing API key: send Authorization: Bearer <API_KEY>',
      });
    }
  });

  it('GET /api/plans lists the configured plans with their limits (0 is unlimited)', async () => {
    const res = await client(app.url, adminKey).get('/api/plans');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      error: 0,
      data: [
        {
          id: 1,
          name: 'free',
          free: true,
          limits: { links: 10, qrcodes: 0, domain: { enabled: true, count: 0 }, ratelimit: 77 },
        },
        {
          id: 2,
          name: 'pro',
          free: true,
          limits: {
            links: 1000,
            qrcodes: 50,
            domain: { enabled: true, count: 5 },
            ratelimit: 100_000,
          },
        },
      ],
    });
  });

  describe('PUT /api/plan/:planid/user/:userid', () => {
    it('moves the user to the plan, with the end date sent or following from the type', async () => {
      const { user, apiKey } = await createTestUser();
      const api = client(app.url, adminKey);
      const res = await api.put(`/api/plan/2/user/${user.id}`, { expiration: '2031-01-02' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'User has been subscribed to the pro plan.',
      });
      const account = await client(app.url, apiKey).get<{ data: Record<string, unknown> }>(
        '/api/account',
      );
      expect(account.body.data).to.include({ status: 'pro', expires: '2031-01-02 23:59:59' });

      await api.put(`/api/plan/free/user/${user.id}`, { type: 'yearly' });
      const yearly = await api.get<{ data: AdminUser }>(`/api/user/${user.id}`);
      expect(yearly.body.data.status).to.equal('free');
      expect(yearly.body.data.planid).to.equal(1);
      const year = new Date().getUTCFullYear() + 1;
      expect(yearly.body.data.expires).to.match(new RegExp(`^${year}-`));

      await api.put(`/api/plan/1/user/${user.id}`, { type: 'lifetime' });
      const lifetime = await api.get<{ data: AdminUser }>(`/api/user/${user.id}`);
      expect(lifetime.body.data.expires).to.equal(null);
    });

    it('answers 404 for an unknown plan or user and 422 for a bad type', async () => {
      const { user } = await createTestUser();
      const api = client(app.url, adminKey);
      const plan = await api.put(`/api/plan/9/user/${user.id}`, {});
      expect(plan.status).to.equal(404);
      expect(plan.body).to.deep.include({ error: 1, message: 'Plan 9 not found' });
      const nobody = await api.put('/api/plan/2/user/99999999', {});
      expect(nobody.status).to.equal(404);
      expect(nobody.body).to.deep.include({ error: 1, message: 'User not found' });
      const type = await api.put(`/api/plan/2/user/${user.id}`, { type: 'weekly' });
      expect(type.status).to.equal(422);
      expect(type.body).to.deep.include({
        error: 1,
        message: 'type must be one of [monthly, yearly, lifetime]',
      });
    });
  });

  describe('users', () => {
    it('POST /api/user/add creates a user on a plan and answers the key once', async () => {
      const username = uniqueName('added');
      const res = await client(app.url, adminKey).post<{
        id: number;
        data: { id: number; email: string; username: string; apikey: string };
      }>('/api/user/add', {
        username,
        email: `${username}@Example.test`,
        password: 'a long password',
        planid: 2,
        expiration: '2032-03-04 05:06:07',
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({
        error: 0,
        message: 'User has been successfully created.',
      });
      expect(res.body.data).to.include({
        id: res.body.id,
        email: `${username}@example.test`,
        username,
      });
      const key = res.body.data.apikey;
      const account = await client(app.url, key).get<{ data: Record<string, unknown> }>(
        '/api/account',
      );
      expect(account.status).to.equal(200);
      expect(account.body.data).to.include({ status: 'pro', expires: '2032-03-04 05:06:07' });
      const shown = await client(app.url, adminKey).get(`/api/user/${res.body.id}`);
      expect(shown.text).not.to.include(key);
      const stored = await User.findOne({ id: res.body.id }).lean();
      expect(JSON.stringify(stored)).not.to.include(key);
    });

    it('POST /api/user/add answers 422 for missing fields and 409 for a taken username', async () => {
      const api = client(app.url, adminKey);
      const missing = await api.post('/api/user/add', {
        username: uniqueName(),
        email: 'a@b.test',
      });
      expect(missing.status).to.equal(422);
      expect(missing.body).to.deep.include({ error: 1, message: 'password is required' });
      const { user } = await createTestUser();
      const taken = await api.post('/api/user/add', {
        username: user.username,
        email: `${uniqueName()}@example.test`,
        password: 'a long password',
      });
      expect(taken.status).to.equal(409);
      expect(taken.body).to.deep.include({ error: 1, message: 'username is already taken' });
      const plan = await api.post('/api/user/add', {
        username: uniqueName(),
        email: `${uniqueName()}@example.test`,
        password: 'a long password',
        planid: 42,
      });
      expect(plan.status).to.equal(404);
    });

    it('GET /api/users lists users with their plan id; filter=admin and filter=<plan> narrow it', async () => {
      const proUser = await createTestUser({ plan: 'pro' });
      const api = client(app.url, adminKey);
      const all = await api.get<{ data: AdminUser[] }>('/api/users');
      expect(all.status).to.equal(200);
      const ids = all.body.data.map((u) => u.id);
      expect(ids).to.include.members([adminId, proUser.user.id]);
      const shown = all.body.data.find((u) => u.id === proUser.user.id);
      expect(shown).to.include({ status: 'pro', planid: 2, admin: false });
      expect(Object.keys(shown ?? {})).to.not.include('apikey');
      const admins = await api.get<{ data: AdminUser[] }>('/api/users?filter=admin');
      expect(admins.body.data.every((u) => u.admin)).to.equal(true);
      expect(admins.body.data.map((u) => u.id)).to.include(adminId);
      const pros = await api.get<{ data: AdminUser[] }>('/api/users?filter=pro');
      expect(pros.body.data.every((u) => u.status === 'pro')).to.equal(true);
      expect(pros.body.data.map((u) => u.id)).to.include(proUser.user.id);
    });

    it('GET /api/user/:id answers one user, 404 for an unknown one', async () => {
      const { user } = await createTestUser();
      const api = client(app.url, adminKey);
      const res = await api.get<{ data: AdminUser }>(`/api/user/${user.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({
        id: user.id,
        email: user.email,
        username: user.username,
        status: 'test',
        planid: null,
        admin: false,
      });
      const missing = await api.get('/api/user/99999999');
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.include({ error: 1, message: 'User not found' });
    });

    it('DELETE /api/user/:id/delete removes the user, their records, cache and rate-limit entries', async () => {
      const victim = await createTestUser();
      const api = client(app.url, victim.apiKey);
      const link = await createLink(app, victim.apiKey, { url: 'https://example.com/gone' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
      const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'bye' });
      const domain = await api.post('/api/domain/add', { domain: uniqueDomain() });
      const pixel = await api.post('/api/pixel/add', {
        type: 'fbpixel',
        name: 'P',
        tag: '123456789012345',
      });
      const channel = await api.post<{ id: number }>('/api/channel/add', { name: 'C' });
      const campaign = await api.post<{ id: number }>('/api/campaign/add', {
        name: 'Camp',
        slug: uniqueName('rot'),
      });
      await api.post(`/api/campaign/${campaign.body.id}/assign/${link.id}`);
      const rotator = `${app.deps.keys.key('campaigns', 'rotator', campaign.body.id)}`;
      await app.deps.redis.set(rotator, '3');
      await api.post(`/api/channel/${channel.body.id}/assign/links/${link.id}`);
      for (const res of [qr, domain, pixel, channel]) expect(res.status, res.text).to.equal(200);
      const rateKey = `${app.deps.keys.rateLimit()}user:${victim.user.id}`;
      // The limiter adds a process's hits to Redis every 50 ms: wait until the victim's count there
      // holds still, so that no hit still held in the process re-creates the key after the delete.
      let seen: string | null = null;
      await eventually(async () => {
        const count = await app.deps.redis.get(rateKey);
        await new Promise((resolve) => setTimeout(resolve, 150));
        const settled = count !== null && count === (await app.deps.redis.get(rateKey));
        seen = count;
        return settled;
      }, 'the limiter has added every hit of the victim to Redis');
      expect(seen).to.not.equal(null);
      await Webhook.create({
        id: 800_000_000 + victim.user.id,
        userId: victim.user.id,
        url: 'http://127.0.0.1:9/hook',
        events: ['clicks'],
        secret: 'v1.x.y.z',
        createdAt: new Date(),
      });

      const res = await client(app.url, adminKey).delete(`/api/user/${victim.user.id}/delete`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, message: 'User has been successfully deleted.' });

      const userId = victim.user.id;
      expect(await User.countDocuments({ id: userId })).to.equal(0);
      for (const model of [
        Link,
        QrCode,
        BrandedDomain,
        Pixel,
        Channel,
        ChannelItem,
        Campaign,
        Webhook,
      ]) {
        expect(await (model as typeof Link).countDocuments({ userId }), model.modelName).to.equal(
          0,
        );
      }
      expect(await app.deps.redis.exists(rateKey, rotator)).to.equal(0);
      expect((await visit(app, `/${link.alias}`)).status).to.equal(404);
      const after = await request(app.url, '/api/account', { key: victim.apiKey });
      expect(after.status).to.equal(401);
      expect(
        (await client(app.url, adminKey).delete(`/api/user/${userId}/delete`)).status,
      ).to.equal(404);
    });

    it('refuses to let an administrator delete their own account', async () => {
      const res = await client(app.url, adminKey).delete(`/api/user/${adminId}/delete`);
      expect(res.status).to.equal(422);
      expect(await User.exists({ id: adminId })).to.not.equal(null);
    });
  });

  describe('CLI', () => {
    // What the CLI process publishes reaches the app's key cache the same way.
    const cli = () => ({ apiKeys: apiKeyCacheFor(app.deps) });
    it('user:create --admin makes an administrator, user:admin turns the flag on and off', async () => {
      const username = uniqueName('cliadmin');
      const out = await userCreate.run([
        '--email',
        `${username}@example.test`,
        '--username',
        username,
        '--admin',
      ]);
      expect(out.admin).to.equal(true);
      const id = out.id as number;
      expect((await client(app.url, out.apiKey as string).get('/api/users')).status).to.equal(200);

      expect(await userAdmin.run(['--user', String(id), '--off'], cli())).to.deep.equal({
        id,
        username,
        admin: false,
      });
      expect((await client(app.url, out.apiKey as string).get('/api/users')).status).to.equal(403);
      expect((await userAdmin.run(['--user', String(id), '--on'], cli())).admin).to.equal(true);
    });

    it('user:admin needs exactly one of --on or --off and an existing user', async () => {
      const both = await rejection(userAdmin.run(['--user', '1', '--on', '--off'], cli()));
      expect(both).to.be.instanceOf(UsageError);
      expect(both.message).to.equal('exactly one of --on or --off is required');
      const none = await rejection(userAdmin.run(['--user', '1'], cli()));
      expect(none).to.be.instanceOf(UsageError);
      const missing = await rejection(userAdmin.run(['--user', '99999999', '--on'], cli()));
      expect(missing.message).to.equal('No user with id 99999999');
    });
  });
});
