import { expect } from 'chai';
import { mongo } from 'mongoose';
import { toAppError } from '../src/shared/errors/error-handler';
import { isMongoFailover } from '../src/shared/errors/infra-errors';
import { isMongoUp } from '../src/shared/infra/dependencies';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createTestUser } from './support/users';

/** What the driver throws when the primary steps down under a request. */
function notWritablePrimary(): mongo.MongoServerError {
  return new mongo.MongoServerError({
    message: 'not primary',
    code: 10107,
    codeName: 'NotWritablePrimary',
  });
}

describe('a replica-set election under requests (issue 22, B3)', () => {
  let app: TestApp;
  const realFind = mongo.Collection.prototype.find;
  before(async () => {
    app = await startTestApp();
  });
  afterEach(() => {
    mongo.Collection.prototype.find = realFind;
  });
  after(() => app.close());

  it('reads the election errors as failover, other server errors not', () => {
    expect(isMongoFailover(notWritablePrimary())).to.equal(true);
    const stepDown = new mongo.MongoServerError({ message: 'stepped down', code: 189 });
    expect(isMongoFailover(stepDown)).to.equal(true);
    const labelled = new mongo.MongoServerError({
      message: 'x',
      code: 1,
      errorLabels: ['RetryableWriteError'],
    });
    expect(isMongoFailover(labelled)).to.equal(true);
    expect(isMongoFailover(new mongo.MongoServerError({ message: 'bad', code: 2 }))).to.equal(
      false,
    );
    expect(toAppError(notWritablePrimary()).status).to.equal(503);
  });

  it('answers 503 with Retry-After, not 500, for what still fails in the window', async () => {
    const { apiKey } = await createTestUser();
    mongo.Collection.prototype.find = function (
      this: mongo.Collection,
      ...args: Parameters<typeof realFind>
    ) {
      if (this.collectionName === 'links') throw notWritablePrimary();
      return realFind.apply(this, args);
    } as typeof realFind;
    const res = await client(app.url, apiKey).get('/api/urls');
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal('5');
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'Service temporarily unavailable, try again shortly',
      code: 'unavailable',
    });
    // An election ends by itself: MongoDB is not marked down for the next requests.
    expect(isMongoUp()).to.equal(true);
    mongo.Collection.prototype.find = realFind;
    expect((await client(app.url, apiKey).get('/api/urls')).status).to.equal(200);
  });
});
