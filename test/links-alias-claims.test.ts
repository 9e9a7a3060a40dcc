import { expect } from 'chai';
import { mongo } from 'mongoose';
import { AliasReservation } from '../src/links/alias.model';
import { linkAliasScope, STALE_CLAIM_MS } from '../src/links/aliases';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createTestUser, uniqueName } from './support/users';

const SCOPE = linkAliasScope(0);

describe('alias claims and the link holding them (issue 22, A4)', () => {
  let app: TestApp;
  let api: ReturnType<typeof client>;
  const realInsertOne = mongo.Collection.prototype.insertOne;
  before(async () => {
    app = await startTestApp();
    api = client(app.url, (await createTestUser()).apiKey);
  });
  afterEach(() => {
    mongo.Collection.prototype.insertOne = realInsertOne;
  });
  after(() => app.close());

  const add = (custom: string) => api.post('/api/url/add', { url: 'https://example.com/', custom });
  const alias = () => uniqueName('claim').replace(/[^A-Za-z0-9_-]/g, '');
  const claimOf = (a: string) => AliasReservation.findOne({ scope: SCOPE, alias: a }).lean();
  const expectTaken = (res: { status: number; body: unknown }, a: string) => {
    expect(res.status).to.equal(409);
    expect(res.body).to.deep.include({ error: 1, message: `alias ${a} is already taken` });
  };

  it('a link whose insert fails gives its alias back, so the same request can be retried', async () => {
    const a = alias();
    mongo.Collection.prototype.insertOne = function (this: mongo.Collection, ...args) {
      if (this.collectionName === 'links') {
        mongo.Collection.prototype.insertOne = realInsertOne;
        return Promise.reject(new Error('connection reset by peer'));
      }
      return realInsertOne.apply(this, args);
    } as typeof realInsertOne;
    const failed = await add(a);
    expect(failed.status).to.equal(500);
    expect(failed.body).to.deep.include({ error: 1 });
    expect(await claimOf(a)).to.equal(null);
    const retried = await add(a);
    expect(retried.status, retried.text).to.equal(200);
    expect((await claimOf(a))?.state).to.equal('taken');
  });

  it('a claim left pending by a crash before the insert can be claimed once stale', async () => {
    const a = alias();
    const old = new Date(Date.now() - STALE_CLAIM_MS - 1000);
    await AliasReservation.create({ scope: SCOPE, alias: a, state: 'pending', claimedAt: old });
    const res = await add(a);
    expect(res.status, res.text).to.equal(200);
    expect((await claimOf(a))?.state).to.equal('taken');
  });

  it('a fresh pending claim (a create in flight) is not handed out: 409', async () => {
    const a = alias();
    await AliasReservation.create({
      scope: SCOPE,
      alias: a,
      state: 'pending',
      claimedAt: new Date(),
    });
    expectTaken(await add(a), a);
  });

  it('a stale claim whose link was stored (a crash before confirming) stays taken: 409', async () => {
    const a = alias();
    expect((await add(a)).status).to.equal(200);
    const old = new Date(Date.now() - STALE_CLAIM_MS - 1000);
    await AliasReservation.updateOne(
      { scope: SCOPE, alias: a },
      { state: 'pending', claimedAt: old },
    );
    expectTaken(await add(a), a);
    expect((await claimOf(a))?.state).to.equal('taken');
  });

  it('deleting a link whose claim was left pending keeps its alias a tombstone', async () => {
    const a = alias();
    const created = await api.post<{ id: number }>('/api/url/add', {
      url: 'https://example.com/',
      custom: a,
    });
    const old = new Date(Date.now() - STALE_CLAIM_MS - 1000);
    await AliasReservation.updateOne(
      { scope: SCOPE, alias: a },
      { state: 'pending', claimedAt: old },
    );
    expect((await api.delete(`/api/url/${created.body.id}/delete`)).status).to.equal(200);
    expectTaken(await add(a), a);
  });
});
