import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { request } from './support/http';

describe('health probes', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ANONYMOUS_RATE_LIMIT: '1' });
  });
  after(() => app.close());

  it('GET /healthz answers 200 without a key', async () => {
    const res = await request<{ status: string; uptime: number }>(app.url, '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('ok');
    expect(res.body.uptime).to.be.a('number');
  });

  it('GET /readyz answers 200 when MongoDB and Redis answer', async () => {
    const res = await request(app.url, '/readyz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      status: 'ready',
      mongodb: 'up',
      redis: 'up',
      clicks: { spooled: 0, lost: 0 },
    });
  });

  it('is outside the rate limiter', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(app.url, '/healthz');
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-ratelimit-limit')).to.equal(null);
    }
  });
});
