import { expect } from 'chai';
import { loadConfig } from '../src/config';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn } from './support/dashboard';

/** Issue 29, I: a dashboard session ends a fixed time after sign-in, however much it is used. */
describe('dashboard session lifetime', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ SESSION_MAX_AGE_SECONDS: '3600' });
  });
  after(() => app.close());

  it('ends a session SESSION_MAX_AGE_SECONDS after its sign-in, even one in constant use', async () => {
    const dash = await signedIn(app.url, await createDashboardUser());
    expect((await dash.api('GET', '/account')).status).to.equal(200);
    const sid = decodeURIComponent(/linkqr\.sid=([^;]+)/.exec(dash.cookie)?.[1] ?? '')
      .slice(2)
      .split('.')[0];
    const key = `${app.deps.keys.key('dashboard', 'sess', '')}${sid}`;
    const stored = JSON.parse((await app.deps.redis.get(key)) ?? '{}') as Record<string, unknown>;
    expect(stored.signedInAt).to.be.a('number');
    // As if the sign-in were just over an hour ago (the rolling idle TTL kept renewing it).
    stored.signedInAt = Date.now() - 3601 * 1000;
    await app.deps.redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    const res = await dash.api('GET', '/account');
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.include({ error: 1, message: 'Sign in at /app/signin first' });
  });

  it('defaults to 7 days, and the worker server to loopback', () => {
    const config = loadConfig({});
    expect(config.dashboard.sessionMaxAgeSeconds).to.equal(7 * 86_400);
    expect(config.workerHost).to.equal('127.0.0.1');
  });
});
