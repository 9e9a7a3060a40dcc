import { expect } from 'chai';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../src/shared/infra/embedded-mongo';
import { baseEnv } from '../support/environment';
import { client, request } from '../support/http';
import { eventually } from '../support/links';
import {
  createUserWithCli,
  startApiProcess,
  startService,
  type ServiceProcess,
} from '../support/processes';
import { uniqueName } from '../support/users';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/**
 * The API and the worker as the service runs them, on a database engine of this test's own, so
 * the engine can be paused and killed without touching the rest of the suite.
 */
describe('MongoDB stalled, then down (issue 11)', function () {
  this.timeout(120_000);
  let engine: EmbeddedMongo;
  let api: ServiceProcess & { url: string };
  let worker: ServiceProcess;
  let key: string;

  before(async () => {
    engine = await startEmbeddedMongo();
    const env = {
      ...baseEnv(),
      MONGODB_URI: engine.uri,
      MONGODB_DB: 'outage',
      REDIS_PREFIX: `${baseEnv().REDIS_PREFIX}${uniqueName('mo')}:`,
      PLAN_RATE_LIMITS: JSON.stringify({ test: 100_000 }),
      // Stopping after the engine is gone cannot close it cleanly: do not wait long for that.
      SHUTDOWN_TIMEOUT_MS: '2000',
    };
    api = await startApiProcess(env);
    worker = startService('workers/main.ts', env);
    await worker.waitForLine(/linkqr worker started/);
    const username = uniqueName('outage');
    const user = await createUserWithCli(env, {
      email: `${username}@example.test`,
      username,
      plan: 'test',
    });
    key = user.apiKey;
  });
  after(async () => {
    try {
      if (engine.pid) process.kill(engine.pid, 'SIGCONT');
    } catch {
      // already gone: the test kills it
    }
    await Promise.all([api?.stop(), worker?.stop()]);
    await engine?.stop();
  });

  it('counts every click served across a 5 s stall, and then answers /api 503 at once when it is down', async () => {
    const created = await client(api.url, key).post<{ id: number; shorturl: string }>(
      '/api/url/add',
      {
        url: 'https://example.com/stall',
      },
    );
    expect(created.status, created.text).to.equal(200);
    const alias = new URL(created.body.shorturl).pathname.slice(1);
    let served = 0;
    const burst = async (n: number) => {
      for (let i = 0; i < n; i += 10) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, () =>
            request(api.url, `/${alias}`, { headers: { 'user-agent': CHROME } }),
          ),
        );
        for (const a of answers) expect(a.status).to.equal(302);
        served += answers.length;
      }
    };
    await burst(100);
    process.kill(engine.pid!, 'SIGSTOP');
    await burst(100);
    // The drainer's writes wait on the paused engine meanwhile (what a failed batch does is
    // covered, deterministically, by the fault tests in visit-drainer.test.ts).
    await new Promise((r) => setTimeout(r, 5_000));
    await burst(100);
    process.kill(engine.pid!, 'SIGCONT');
    await burst(100);

    const clicks = async () =>
      (await client(api.url, key).get<{ data: { clicks: number } }>(`/api/url/${created.body.id}`))
        .body.data?.clicks;
    await eventually(
      async () => (await clicks()) === served,
      `${served} clicks are counted`,
      60_000,
    );

    process.kill(engine.pid!, 'SIGKILL');
    const redirect = await request(api.url, `/${alias}`, { headers: { 'user-agent': CHROME } });
    expect(redirect.status, 'a cached link still redirects').to.equal(302);
    const unavailable = { error: 1, message: 'Service temporarily unavailable, try again shortly' };
    // The first request finds out (the driver has not noticed yet); every one after is answered
    // from the known state at once, without trying MongoDB (the log says which).
    const first = await client(api.url, key).get('/api/account');
    expect(first.status).to.equal(503);
    expect(first.body).to.deep.equal(unavailable);
    for (let i = 0; i < 3; i += 1) {
      const next = await client(api.url, key).get('/api/urls');
      expect(next.status).to.equal(503);
      expect(next.body).to.deep.equal(unavailable);
    }
    await api.waitForLine(/MongoDB is down/, 5_000);
    expect((await request(api.url, '/readyz')).body.mongodb).to.equal('down');
  });
});
