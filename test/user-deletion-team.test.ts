import { expect } from 'chai';
import { Membership } from '../src/team/membership.model';
import { TwoFactor } from '../src/two-factor/two-factor.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser } from './support/dashboard';
import { client } from './support/http';
import { enrol } from './support/two-factor';
import { createTestUser, type TestUser } from './support/users';

describe('deleting a user: their team memberships and second factor', () => {
  let app: TestApp;
  let adminKey: string;
  before(async () => {
    app = await startTestApp();
    adminKey = (await createTestUser({ admin: true })).apiKey;
  });
  after(() => app.close());

  async function addMember(owner: TestUser, member: TestUser) {
    const res = await client(app.url, owner.apiKey).post('/api/team/add', {
      username: member.user.username,
      role: 'editor',
    });
    expect(res.status, res.text).to.equal(200);
  }

  it('removes a deleted member from every team they were in', async () => {
    const owner = await createTestUser();
    const member = await createTestUser();
    await addMember(owner, member);
    const res = await client(app.url, adminKey).delete(`/api/user/${member.user.id}/delete`);
    expect(res.status, res.text).to.equal(200);
    expect(await Membership.countDocuments({ memberId: member.user.id })).to.equal(0);
    const team = await client(app.url, owner.apiKey).get<{ data: { members: unknown[] } }>(
      '/api/team',
    );
    expect(team.body.data.members).to.deep.equal([]);
  });

  it('removes a deleted owner’s team: a member acting in it is refused at once', async () => {
    const owner = await createTestUser();
    const member = await createTestUser();
    await addMember(owner, member);
    const as = { headers: { 'linkqr-account': String(owner.user.id) } };
    // Acting once puts the membership in the cache that the deletion must drop.
    expect((await client(app.url, member.apiKey).get('/api/urls', as)).status).to.equal(200);
    const res = await client(app.url, adminKey).delete(`/api/user/${owner.user.id}/delete`);
    expect(res.status, res.text).to.equal(200);
    expect(await Membership.countDocuments({ accountId: owner.user.id })).to.equal(0);
    const after = await client(app.url, member.apiKey).get('/api/urls', as);
    expect(after.status).to.equal(403);
    expect(after.body).to.deep.equal({
      error: 1,
      message: `Forbidden: you are not a member of account ${owner.user.id}`,
      code: 'forbidden',
    });
  });

  it('deletes the user’s second factor and recovery codes', async () => {
    const user = await createDashboardUser();
    await enrol(app.url, user);
    const res = await client(app.url, adminKey).delete(`/api/user/${user.user.id}/delete`);
    expect(res.status, res.text).to.equal(200);
    expect(await TwoFactor.countDocuments({ userId: user.user.id })).to.equal(0);
  });
});
