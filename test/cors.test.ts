import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { request } from './support/http';
import { createTestUser } from './support/users';

const ALLOWED = 'https://app.example.com';

function preflight(app: TestApp, origin: string) {
  return request(app.url, '/api/urls', {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
  });
}

describe('CORS on /api', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ CORS_ORIGINS: `${ALLOWED}, http://localhost:5173` });
  });
  after(() => app.close());

  it('answers a preflight from an allowed origin with 204 before any key is checked', async () => {
    const res = await preflight(app, ALLOWED);
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    expect(res.headers.get('access-control-allow-headers')).to.match(/Authorization/);
    expect(res.headers.get('access-control-allow-methods')).to.equal('GET,POST,PUT,DELETE');
    expect(res.headers.get('access-control-max-age')).to.equal('600');
    expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    expect(res.headers.get('vary')).to.match(/Origin/);
  });

  it('answers a bare OPTIONS with 204 and no body, not 401 nor 200 text/plain (issue 11)', async () => {
    const res = await request(app.url, '/api/url/1/update', { method: 'OPTIONS' });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expect(res.headers.get('content-type')).to.equal(null);
  });

  it('answers a preflight from another origin without allowing it', async () => {
    const res = await preflight(app, 'https://evil.example');
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('lets an allowed origin read the answer and its rate-limit headers', async () => {
    const { apiKey } = await createTestUser();
    const res = await request(app.url, '/api/account', {
      key: apiKey,
      headers: { origin: ALLOWED },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',');
    expect(exposed).to.include.members([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ]);
  });

  it('still refuses the request itself without a key (only the preflight is free)', async () => {
    const res = await request(app.url, '/api/account', { headers: { origin: ALLOWED } });
    expect(res.status).to.equal(401);
    expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
  });
});

describe('CORS_ORIGINS', () => {
  it('unset: no origin is allowed, and a preflight still never meets auth', async () => {
    const app = await startTestApp();
    try {
      const res = await preflight(app, ALLOWED);
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await app.close();
    }
  });

  it('* allows any origin', async () => {
    const app = await startTestApp({ CORS_ORIGINS: '*' });
    try {
      const res = await preflight(app, 'https://anyone.example');
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    } finally {
      await app.close();
    }
  });
});

describe('QR images cross-origin', () => {
  it('may be embedded by any site (Cross-Origin-Resource-Policy: cross-origin)', async () => {
    const app = await startTestApp({ QR_IMAGE_WAIT_MS: '0' });
    try {
      const { apiKey } = await createTestUser();
      const created = await request<{ link: string }>(app.url, '/api/qr/add', {
        key: apiKey,
        body: { type: 'text', data: 'embed me' },
      });
      const path = new URL(created.body.link).pathname;
      const res = await request(app.url, path, { headers: { origin: 'https://blog.example' } });
      // No worker and no wait here, so the image is still rendering; qr.test checks the rendered one.
      expect(res.status).to.equal(202);
      expect(res.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
      const api = await request(app.url, '/api/account', { key: apiKey });
      expect(api.headers.get('cross-origin-resource-policy')).to.equal('same-origin');
    } finally {
      await app.close();
    }
  });
});
