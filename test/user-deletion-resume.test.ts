import { expect } from 'chai';
import { mongo } from 'mongoose';
import { Link } from '../src/links/link.model';
import { User } from '../src/users/user.model';
import { resumeUserDeletions, userDeletionContextFor } from '../src/users/user-deletion';
import { UserDeletion } from '../src/users/user-deletion.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser } from './support/users';

describe('deleting a user, resumably (issue 22, A5)', () => {
  let app: TestApp;
  let adminKey: string;
  const realDeleteOne = mongo.Collection.prototype.deleteOne;
  before(async () => {
    app = await startTestApp();
    await linkCacheLive(app);
    adminKey = (await createTestUser({ admin: true })).apiKey;
  });
  afterEach(() => {
    mongo.Collection.prototype.deleteOne = realDeleteOne;
  });
  after(() => app.close());

  /** A user with two links, both visited (so cached), and a clean-up that dies after the first. */
  async function deletionStoppedHalfway() {
    const victim = await createTestUser();
    const links = [
      await createLink(app, victim.apiKey, { url: 'https://example.com/one' }),
      await createLink(app, victim.apiKey, { url: 'https://example.com/two' }),
    ];
    for (const link of links) expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    let linkDeletes = 0;
    mongo.Collection.prototype.deleteOne = function (this: mongo.Collection, ...args) {
      if (this.collectionName === 'links' && ++linkDeletes === 2) {
        return Promise.reject(new Error('connection reset by peer'));
      }
      return realDeleteOne.apply(this, args);
    } as typeof realDeleteOne;
    const res = await client(app.url, adminKey).delete(`/api/user/${victim.user.id}/delete`);
    mongo.Collection.prototype.deleteOne = realDeleteOne;
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ error: 0, message: 'User has been successfully deleted.' });
    return { userId: victim.user.id, links, apiKey: victim.apiKey };
  }

  it('a clean-up that stops halfway leaves no link redirecting and no key working', async () => {
    const { userId, links, apiKey } = await deletionStoppedHalfway();
    expect(await User.countDocuments({ id: userId })).to.equal(0);
    expect(await Link.countDocuments({ userId })).to.equal(1);
    expect(await UserDeletion.countDocuments({ _id: userId })).to.equal(1);
    for (const link of links) expect((await visit(app, `/${link.alias}`)).status).to.equal(404);
    expect((await client(app.url, apiKey).get('/api/account')).status).to.equal(401);
  });

  it('the worker finishes it once the lease runs out, and a second pass finds nothing', async () => {
    const { userId } = await deletionStoppedHalfway();
    const ctx = userDeletionContextFor(app.deps);
    // Within the lease (the API's own attempt), nobody takes it over.
    await resumeUserDeletions(ctx);
    expect(await UserDeletion.countDocuments({ _id: userId })).to.equal(1);
    const later = new Date(Date.now() + 11 * 60_000);
    expect(await resumeUserDeletions(ctx, later)).to.be.at.least(1);
    expect(await Link.countDocuments({ userId })).to.equal(0);
    expect(await UserDeletion.countDocuments({ _id: userId })).to.equal(0);
    expect(await resumeUserDeletions(ctx, later)).to.equal(0);
  });
});
