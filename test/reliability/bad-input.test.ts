import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app-harness';
import { client, request, type TestResponse } from '../support/http';
import { createLink } from '../support/links';
import { createTestUser } from '../support/users';

function expectApiFailure(res: TestResponse, status: number): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body.error).to.equal(1);
  expect(res.body.message).to.be.a('string').and.not.equal('Internal server error');
}

function expectPublicPage(res: TestResponse, status: number): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^text\/html/);
  expect(res.text).to.include('<!doctype html>');
}

describe('bad input never answers 500 (issue 11)', () => {
  let app: TestApp;
  let key: string;
  let alias: string;
  let protectedAlias: string;
  before(async () => {
    app = await startTestApp();
    key = (await createTestUser()).apiKey;
    alias = (await createLink(app, key, { url: 'https://example.com/a' })).alias;
    protectedAlias = (
      await createLink(app, key, { url: 'https://example.com/p', password: 'pw-secret' })
    ).alias;
  });
  after(() => app.close());

  describe('malformed percent-encoding in a path parameter', () => {
    for (const path of ['/%ff', '/qr/%E0%A4%A', '/s/%ff', '/u/%ff/list-1']) {
      it(`answers the 400 page for GET ${path}`, async () => {
        expectPublicPage(await request(app.url, path), 400);
      });
    }

    it('answers the JSON 400 for GET /api/url/%ff with a key', async () => {
      const res = await client(app.url, key).get('/api/url/%ff');
      expectApiFailure(res, 400);
      expect(res.body.message).to.equal('Malformed percent-encoding in the URL');
    });

    it('answers the JSON 400 for PUT /api/url/%/update', async () => {
      expectApiFailure(await client(app.url, key).put('/api/url/%/update', { url: 'x' }), 400);
    });
  });

  describe('a Content-Encoding that does not match the body', () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      it(`answers the JSON 400 for a plain body labelled ${encoding}`, async () => {
        const res = await request(app.url, '/api/url/add', {
          method: 'POST',
          key,
          rawBody: '{"name":"x"}',
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        });
        expectApiFailure(res, 400);
        expect(res.body.message).to.equal('Request body does not match its Content-Encoding');
      });
    }

    it('answers the JSON 415 for an encoding nobody supports', async () => {
      const res = await request(app.url, '/api/url/add', {
        method: 'POST',
        key,
        rawBody: '{"name":"x"}',
        headers: { 'content-type': 'application/json', 'content-encoding': 'zstd-nope' },
      });
      expectApiFailure(res, 415);
    });

    it('answers the 400 page for a password form labelled gzip', async () => {
      const res = await request(app.url, `/${protectedAlias}`, {
        method: 'POST',
        rawBody: 'password=pw-secret',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-encoding': 'gzip',
        },
      });
      expectPublicPage(res, 400);
    });
  });

  it('answers the 413 page for a password form with more than 10 fields', async () => {
    const fields = 'abcdefghijkl'
      .split('')
      .map((name, i) => `${name}=${i}`)
      .join('&');
    const res = await request(app.url, `/${protectedAlias}`, {
      method: 'POST',
      rawBody: fields,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectPublicPage(res, 413);
  });

  it('redirects a malformed form on a plain link like a visit', async () => {
    const res = await request(app.url, `/${alias}`, {
      method: 'POST',
      rawBody: 'a=%ff',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(302);
  });

  describe('lone surrogates', () => {
    for (const field of ['subject', 'body']) {
      it(`refuses one in an email QR code's ${field} with a 422 naming the field`, async () => {
        const res = await request(app.url, '/api/qr/add', {
          method: 'POST',
          key,
          rawBody: `{"type":"email","data":{"email":"a@example.com","${field}":"\\ud800"}}`,
          headers: { 'content-type': 'application/json' },
        });
        expectApiFailure(res, 422);
        expect(res.body.message).to.equal(`data.${field} must not contain a lone surrogate`);
      });
    }

    it('refuses one in a link URL with a 422 naming the field', async () => {
      const res = await request(app.url, '/api/url/add', {
        method: 'POST',
        key,
        rawBody: '{"url":"https://example.com/\\udfff"}',
        headers: { 'content-type': 'application/json' },
      });
      expectApiFailure(res, 422);
      expect(res.body.message).to.equal('url must not contain a lone surrogate');
    });

    it('accepts a well-formed pair (an emoji)', async () => {
      const res = await client(app.url, key).post('/api/qr/add', {
        type: 'email',
        data: { email: 'a@example.com', subject: 'hi \ud83d\ude00' },
      });
      expect(res.status, res.text).to.equal(200);
    });
  });
});
