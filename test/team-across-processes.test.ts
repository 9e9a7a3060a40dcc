import { expect } from 'chai';
import { membershipCacheFor } from '../src/team/acting-account';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { eventually } from './support/links';
import { createTestUser, uniqueName } from './support/users';

const PLANS = [
  { id: 1, name: 'tiny', rateLimit: 100_000, maxLinks: 2 },
  { id: 2, name: 'roomy', rateLimit: 100_000 },
];

/**
 * Every API process caches memberships, each with a copy of the owner's record (plan, plan end):
 * a removal or a plan change must reach them all at once, not when the copy times out.
 */
describe('team changes reaching every API process', () => {
  let app: TestApp;
  let other: TestApp;
  before(async () => {
    const env = { PLANS: JSON.stringify(PLANS), REDIS_PREFIX: `${uniqueName('tp')}:` };
    app = await startTestApp(env);
    other = await startTestApp(env);
    await membershipCacheFor(app.deps).whenLive();
    await membershipCacheFor(other.deps).whenLive();
  });
  after(async () => {
    await app.close();
    await other.close();
  });

  const as = (account: number) => ({ headers: { 'linkqr-account': String(account) } });

  async function teamWithEditor() {
    const owner = await createTestUser({ plan: 'roomy' });
    const editor = await createTestUser();
    const added = await client(app.url, owner.apiKey).post('/api/team/add', {
      username: editor.user.username,
      role: 'editor',
    });
    expect(added.status, added.text).to.equal(200);
    return { owner, editor };
  }

  async function subscribe(ownerId: number, planId: number, body: Record<string, unknown>) {
    const admin = await createTestUser({ admin: true });
    const res = await client(app.url, admin.apiKey).put(
      `/api/plan/${planId}/user/${ownerId}`,
      body,
    );
    expect(res.status, res.text).to.equal(200);
  }

  it('ends a removed member’s access at once in every process', async () => {
    const { owner, editor } = await teamWithEditor();
    const list = (on: TestApp) => client(on.url, editor.apiKey).get('/api/urls', as(owner.user.id));
    for (const on of [app, other]) expect((await list(on)).status).to.equal(200);
    const team = await client(app.url, owner.apiKey).get<{ data: { members: { id: number }[] } }>(
      '/api/team',
    );
    const [member] = team.body.data.members;
    const removed = await client(app.url, owner.apiKey).delete(`/api/team/${member!.id}/delete`);
    expect(removed.body).to.deep.equal({ error: 0, message: 'Member has been removed.' });
    const key = `${owner.user.id}:${editor.user.id}`;
    await eventually(
      async () => membershipCacheFor(other.deps).peek(key) === undefined,
      'the removal reaches the other process',
    );
    for (const on of [app, other]) {
      const refused = await list(on);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({
        error: 1,
        message: `Forbidden: you are not a member of account ${owner.user.id}`,
        code: 'forbidden',
      });
    }
  });

  it('applies a smaller plan to the member’s next write in every process', async () => {
    const { owner, editor } = await teamWithEditor();
    const add = (on: TestApp) =>
      client(on.url, editor.apiKey).post(
        '/api/url/add',
        { url: 'https://example.com/m' },
        as(owner.user.id),
      );
    // Both processes now hold the membership, with the owner's record on the roomy plan.
    for (const on of [app, other]) expect((await add(on)).status).to.equal(200);
    const key = `${owner.user.id}:${editor.user.id}`;
    for (const on of [app, other]) {
      expect(membershipCacheFor(on.deps).peek(key)?.owner.status).to.equal('roomy');
    }
    await subscribe(owner.user.id, 1, { type: 'monthly' });
    await eventually(
      async () => membershipCacheFor(other.deps).peek(key) === undefined,
      'the plan change reaches the other process',
    );
    for (const on of [app, other]) {
      const refused = await add(on);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.include({
        error: 1,
        message: 'Plan limit reached: maxLinks (2) on the tiny plan; delete a link or change plan',
      });
    }
  });

  it('refuses the member at once in every process when the owner’s plan has ended', async () => {
    const { owner, editor } = await teamWithEditor();
    const list = (on: TestApp) => client(on.url, editor.apiKey).get('/api/urls', as(owner.user.id));
    for (const on of [app, other]) expect((await list(on)).status).to.equal(200);
    await subscribe(owner.user.id, 2, { expiration: '2001-01-01 00:00:00' });
    const key = `${owner.user.id}:${editor.user.id}`;
    await eventually(
      async () => membershipCacheFor(other.deps).peek(key) === undefined,
      'the plan change reaches the other process',
    );
    for (const on of [app, other]) {
      const refused = await list(on);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({
        error: 1,
        message: `Forbidden: the plan of account ${owner.user.id} has ended`,
        code: 'forbidden',
      });
    }
  });
});
