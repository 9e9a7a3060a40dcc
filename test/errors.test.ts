import { expect } from 'chai';
import express from 'express';
import mongoose from 'mongoose';
import { errorHandler } from '../src/shared/errors/error-handler';
import { createLogger } from '../src/shared/infra/logger';
import { connectMongo } from '../src/shared/infra/mongo';
import { standaloneRedis } from '../src/shared/infra/redis-connections';
import { listen } from '../src/server';
import { startTestApp, type TestApp } from './support/app-harness';
import { state, testDbName } from './support/environment';
import { client, request } from './support/http';
import { createTestUser } from './support/users';

describe('error responses', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp({ BODY_LIMIT: '1kb' });
    key = (await createTestUser()).apiKey;
  });
  after(() => app.close());

  it('answers 400 for malformed JSON', async () => {
    const res = await request(app.url, '/api/account/update', {
      method: 'PUT',
      key,
      rawBody: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ error: 1, message: 'Malformed JSON body', code: 'bad_json' });
  });

  it('answers 422 when the JSON body is not an object', async () => {
    const res = await request(app.url, '/api/account/update', {
      method: 'PUT',
      key,
      rawBody: '["a"]',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'Body must be a JSON object',
      code: 'validation_failed',
    });
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await client(app.url, key).put('/api/account/update', {
      email: `${'a'.repeat(2000)}@x.test`,
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'Request body is too large',
      code: 'payload_too_large',
    });
  });

  it('answers 415 for a write whose body is not JSON', async () => {
    const res = await request(app.url, '/api/account/update', {
      method: 'PUT',
      key,
      rawBody: 'email=a@b.test',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'Request body must be JSON (Content-Type: application/json)',
      code: 'unsupported_media_type',
    });
  });

  it('answers 404 as JSON for an unknown API route', async () => {
    const res = await client(app.url, key).get('/api/nothing/here');
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'No route for GET /nothing/here',
      code: 'not_found',
    });
  });

  it('answers 404 for a known path with an unsupported method', async () => {
    const res = await client(app.url, key).delete('/api/account');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ error: 1, message: 'No route for DELETE /account' });
  });

  it('answers 500 with a generic message and no stack trace for an unexpected failure', async () => {
    const bare = express();
    bare.get('/api/boom', () => {
      throw new Error('secret internal detail at /srv/app.js:12');
    });
    bare.use(errorHandler(createLogger('silent')));
    const server = await listen(bare, 0, '127.0.0.1');
    try {
      const res = await request(`http://127.0.0.1:${server.port}`, '/api/boom');
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({
        error: 1,
        message: 'Internal server error',
        code: 'internal',
      });
      expect(res.text).not.to.include('secret');
    } finally {
      await server.close();
    }
  });

  it('sets security headers and a request id on every response', async () => {
    const res = await client(app.url, key).get('/api/account');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('x-powered-by')).to.equal(null);
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  describe('when Redis is down', () => {
    it('answers 503 at once, and /readyz says which dependency is down', async () => {
      const deadRedis = standaloneRedis('redis://127.0.0.1:1', 'request', {
        retryStrategy: () => null,
      });
      deadRedis.on('error', () => undefined);
      const down = await startTestApp({}, { redis: deadRedis });
      try {
        const res = await client(down.url, key).get('/api/account');
        expect(res.status).to.equal(503);
        expect(res.body).to.deep.equal({
          error: 1,
          message: 'Service temporarily unavailable, try again shortly',
          code: 'unavailable',
        });
        const ready = await request(down.url, '/readyz');
        expect(ready.status).to.equal(503);
        expect(ready.body).to.deep.include({ status: 'unavailable', mongodb: 'up', redis: 'down' });
      } finally {
        await down.close();
        deadRedis.disconnect();
      }
    });
  });

  describe('when MongoDB is down', () => {
    after(async () => {
      // As the root hooks connect: the query-counting tests that run later listen to commands.
      if (mongoose.connection.readyState !== 1)
        await connectMongo(state.mongoUri as string, testDbName, { monitorCommands: true });
    });

    it('answers 503 at once, and /readyz reports it', async () => {
      await mongoose.disconnect();
      // A list needs MongoDB; the caller's key alone may still be answered from the key cache.
      const res = await client(app.url, key).get('/api/pixels');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal({
        error: 1,
        message: 'Service temporarily unavailable, try again shortly',
        code: 'unavailable',
      });
      const ready = await request(app.url, '/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body).to.deep.include({ status: 'unavailable', mongodb: 'down', redis: 'up' });
    });
  });
});
