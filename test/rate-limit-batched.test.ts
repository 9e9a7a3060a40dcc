import { expect } from 'chai';
import { createLogger } from '../src/shared/infra/logger';
import { startTestApp, type TestApp } from './support/app-harness';
import { limiterCommands } from './support/limiter-commands';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

/**
 * The public limiter counts locally and syncs with Redis in batches (BatchedRedisStore): the cap
 * still holds across API processes (within the sync slack), per address, and per window.
 */
describe('public rate limit: batched counts shared through Redis', () => {
  const warnings: string[] = [];
  const logger = createLogger('info', 'linkqr-test', {
    write: (line: string) => {
      const entry = JSON.parse(line) as { msg?: string; level?: number };
      if (entry.msg?.startsWith('public rate limit')) warnings.push(entry.msg);
    },
  });
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function limitedApp(env: NodeJS.ProcessEnv): Promise<TestApp> {
    const app = await startTestApp({ TRUST_PROXY: '1', ...env }, { logger });
    apps.push(app);
    await linkCacheLive(app);
    return app;
  }
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

  it('lets two processes on one Redis together refuse past the cap, within the sync slack', async () => {
    const prefix = `${uniqueName('prb')}:`;
    const limit = 40;
    const one = await limitedApp({ REDIS_PREFIX: prefix, PUBLIC_RATE_LIMIT: String(limit) });
    const two = await limitedApp({ REDIS_PREFIX: prefix, PUBLIC_RATE_LIMIT: String(limit) });
    const { apiKey } = await createTestUser();
    const link = await createLink(one, apiKey, { url: 'https://example.com/shared-cap' });
    const client = from('198.51.100.40');
    let served = 0;
    for (let i = 0; i < 3 * limit; i += 1) {
      const app = i % 2 === 0 ? one : two;
      if ((await visit(app, `/${link.alias}`, client)).status === 302) served += 1;
    }
    expect(served).to.be.at.least(limit);
    // The documented slack: each process answers from its own view only below half the cap.
    expect(served).to.be.at.most(limit + limit / 2);
    // Both refuse from now on, and Redis holds every request once the batches are in.
    expect((await visit(one, `/${link.alias}`, client)).status).to.equal(429);
    expect((await visit(two, `/${link.alias}`, client)).status).to.equal(429);
    const counter = `${one.deps.keys.publicRateLimit()}ip:198.51.100.40`;
    const deadline = Date.now() + 2000;
    while (Number(await one.deps.redis.get(counter)) < 3 * limit + 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(Number(await one.deps.redis.get(counter))).to.equal(3 * limit + 2);
  });

  it('spends far fewer Redis commands than clicks below the cap, and keeps addresses apart', async () => {
    const app = await limitedApp({
      REDIS_PREFIX: `${uniqueName('prb')}:`,
      PUBLIC_RATE_LIMIT: '1000',
    });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/few-commands' });
    const statuses: number[] = [];
    const commands = await limiterCommands(app, async () => {
      for (let i = 0; i < 30; i += 1)
        statuses.push((await visit(app, `/${link.alias}`, from('198.51.100.41'))).status);
    });
    expect(statuses.every((s) => s === 302)).to.equal(true);
    expect(commands).to.be.below(15);

    // Past its cap a client is refused from the process's count, not at a round trip a request.
    const capped = await limitedApp({
      REDIS_PREFIX: `${uniqueName('prb')}:`,
      PUBLIC_RATE_LIMIT: '3',
    });
    const flood = await createLink(capped, apiKey, { url: 'https://example.com/flood' });
    const seen: number[] = [];
    for (let i = 0; i < 4; i += 1)
      seen.push((await visit(capped, `/${flood.alias}`, from('198.51.100.46'))).status);
    expect(seen).to.deep.equal([302, 302, 302, 429]);
    const refusals = await limiterCommands(capped, async () => {
      for (let i = 0; i < 10; i += 1)
        expect((await visit(capped, `/${flood.alias}`, from('198.51.100.46'))).status).to.equal(
          429,
        );
    });
    expect(refusals).to.be.below(10);

    // Another address starts at its own count: exact with a cap of 2.
    const small = await limitedApp({
      REDIS_PREFIX: `${uniqueName('prb')}:`,
      PUBLIC_RATE_LIMIT: '2',
    });
    const other = await createLink(small, apiKey, { url: 'https://example.com/apart' });
    for (const address of ['198.51.100.42', '198.51.100.43']) {
      const seen = [];
      for (let i = 0; i < 3; i += 1)
        seen.push((await visit(small, `/${other.alias}`, from(address))).status);
      expect(seen, address).to.deep.equal([302, 302, 429]);
    }
  });

  it('lets the count expire with the window', async () => {
    const app = await limitedApp({
      REDIS_PREFIX: `${uniqueName('prb')}:`,
      PUBLIC_RATE_LIMIT: '2',
      PUBLIC_RATE_WINDOW_MS: '1000',
    });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/window' });
    const client = from('198.51.100.44');
    const seen = [];
    for (let i = 0; i < 3; i += 1) seen.push((await visit(app, `/${link.alias}`, client)).status);
    expect(seen).to.deep.equal([302, 302, 429]);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await visit(app, `/${link.alias}`, client)).status).to.equal(302);
  });

  it('fails open while Redis refuses the count, logs it once, and counts again after', async () => {
    const app = await limitedApp({ REDIS_PREFIX: `${uniqueName('prb')}:`, PUBLIC_RATE_LIMIT: '2' });
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/outage' });
    const client = from('198.51.100.45');
    const redis = app.deps.redis;
    const original = redis.call.bind(redis);
    const prefix = app.deps.keys.publicRateLimit();
    redis.call = ((...args: Parameters<typeof original>) => {
      if (args.some((a) => typeof a === 'string' && a.startsWith(prefix)))
        return Promise.reject(new Error('Connection is closed.'));
      return original(...args);
    }) as typeof redis.call;
    warnings.length = 0;
    const during = [];
    try {
      for (let i = 0; i < 5; i += 1)
        during.push((await visit(app, `/${link.alias}`, client)).status);
    } finally {
      redis.call = original;
    }
    expect(during).to.deep.equal([302, 302, 302, 302, 302]);
    expect(warnings).to.have.length(1);
    const after = [];
    for (let i = 0; i < 3; i += 1) after.push((await visit(app, `/${link.alias}`, client)).status);
    expect(after).to.deep.equal([302, 302, 429]);
  });
});
