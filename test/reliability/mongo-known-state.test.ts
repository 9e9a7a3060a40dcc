import { expect } from 'chai';
import { mongoHealth } from '../../src/shared/infra/dependencies';
import { startTestApp, type TestApp } from '../support/app-harness';
import { client } from '../support/http';
import { eventually } from '../support/links';
import { createTestUser } from '../support/users';

describe('MongoDB known to be down (issue 11)', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp();
    key = (await createTestUser()).apiKey;
  });
  after(() => app.close());

  it('answers /api 503 without trying MongoDB once an operation found it down, and recovers by itself', async () => {
    mongoHealth.markDown();
    const res = await client(app.url, key).get('/api/account');
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'Service temporarily unavailable, try again shortly',
    });
    // MongoDB is in fact up here: the probe's next ping marks it so.
    await eventually(
      async () => (await client(app.url, key).get('/api/account')).status === 200,
      'the API serves again',
      5_000,
    );
  });
});
