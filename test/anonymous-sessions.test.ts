import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import {
  cookiesOf,
  createDashboardUser,
  DashboardClient,
  TEST_PASSWORD,
} from './support/dashboard';
import { testRedisPrefix } from './support/environment';

/** Issue 29, M4: anonymous visitors of the dashboard cost no Redis session, and are limited. */
describe('anonymous dashboard visitors', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({
      REDIS_PREFIX: `${testRedisPrefix}anon-sessions:`,
      SIGNIN_PAGE_LIMIT_PER_IP: '6',
    });
  });
  after(() => app.close());

  async function storedSessions(): Promise<number> {
    const pattern = `${app.deps.keys.key('dashboard', 'sess', '')}*`;
    let cursor = '0';
    let count = 0;
    do {
      const [next, keys] = await app.deps.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      count += keys.length;
    } while (cursor !== '0');
    return count;
  }

  it('stores no session for the sign-in page nor a failed sign-in, only after a sign-in', async () => {
    const before = await storedSessions();
    const dash = new DashboardClient(app.url);
    const page = await dash.send('/app/signin');
    expect(page.status).to.equal(200);
    expect(cookiesOf(page).map((c) => c.split('=')[0])).to.deep.equal(['linkqr.csrf']);
    const failed = await dash.form('/app/signin', { email: 'no@example.test', password: 'wrong' });
    expect(failed.status).to.equal(401);
    expect(await storedSessions()).to.equal(before);
    const user = await createDashboardUser();
    const ok = await dash.form('/app/signin', { email: user.user.email, password: TEST_PASSWORD });
    expect(ok.status).to.equal(303);
    expect(await storedSessions()).to.equal(before + 1);
  });

  it('refuses a sign-in form token with another visitor’s cookie (403)', async () => {
    const user = await createDashboardUser();
    const a = new DashboardClient(app.url);
    const b = new DashboardClient(app.url);
    await a.send('/app/signin');
    await b.send('/app/signin');
    b.csrf = a.csrf;
    const res = await b.form('/app/signin', { email: user.user.email, password: TEST_PASSWORD });
    expect(res.status).to.equal(403);
    expect(res.text).to.include('Missing or invalid CSRF token');
    const forged = new DashboardClient(app.url);
    await forged.send('/app/signin');
    forged.csrf = `${Date.now()}.${'A'.repeat(43)}`;
    const refused = await forged.form('/app/signin', { email: user.user.email, password: 'x' });
    expect(refused.status).to.equal(403);
  });

  it('limits sign-in page requests per client address (429)', async () => {
    const limited = await startTestApp({
      REDIS_PREFIX: `${testRedisPrefix}signin-page-limit:`,
      SIGNIN_PAGE_LIMIT_PER_IP: '3',
    });
    try {
      const dash = new DashboardClient(limited.url);
      for (let i = 0; i < 3; i += 1) expect((await dash.send('/app/signin')).status).to.equal(200);
      const res = await dash.send('/app/signin');
      expect(res.status).to.equal(429);
      expect(res.text).to.include(
        'Too many requests for the sign-in page: try again in 15 minutes',
      );
    } finally {
      await limited.close();
    }
  });
});
