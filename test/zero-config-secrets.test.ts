import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { runId, state } from './support/environment';
import { client, request } from './support/http';
import { cli, freePort, launch, shutDown, type Launched } from './support/launcher';
import { uniqueName } from './support/users';
import { startReceiver, verifySignature, type Receiver } from './support/webhooks';

interface SecretsLine {
  name: string;
  msg: string;
  level: number;
  generated?: string[];
  reused?: string[];
  dir?: string;
  webhooks?: number;
  users?: Array<{ userId: number; count: number; ids: number[] }>;
}

/** Polls `probe` until it answers something, for at most `timeoutMs`. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Issue 27: `npm start` with no secrets set has every feature on. The launcher runs here against
 * the suite's own database engine (MONGODB_URI) rather than an in-memory one of its own, so what
 * the first start stored is still there after the restart: the secrets are what is under test.
 */
describe('zero-config start: secrets generated once, kept beside the data (issue 27)', function () {
  this.timeout(180_000);
  const dbName = `linkqr_secrets_${runId}`;
  let env: NodeJS.ProcessEnv;
  let runtimeDir: string;
  let receiver: Receiver;
  let service: Launched | undefined;
  let apiKey: string;
  let userId: number;
  let webhook: { id: number; secret: string };
  const outputs: string[] = [];

  const secretFile = (name: string) => path.join(runtimeDir, 'secrets', name);
  const lines = (running: Launched) => running.logs as unknown as SecretsLine[];

  async function start(): Promise<Launched> {
    service = await launch({ ...env });
    return service;
  }
  async function stop(): Promise<void> {
    if (!service) return;
    service.process.kill('SIGTERM');
    expect(await service.exit).to.equal(0);
    outputs.push(...service.output);
    service = undefined;
  }
  async function deliveredFor(linkUrl: string): Promise<{ signature: string; body: string }> {
    const created = await client(`http://127.0.0.1:${env.PORT}`, apiKey).post('/api/url/add', {
      url: linkUrl,
    });
    expect(created.status, created.text).to.equal(200);
    const found = await until(
      async () => receiver.received.find((r) => r.body.includes(linkUrl)),
      `a delivery for ${linkUrl}`,
      30_000,
    );
    return { signature: String(found.headers['linkqr-signature']), body: found.body };
  }

  before(async () => {
    receiver = await startReceiver();
    runtimeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-secrets-'));
    env = {
      PATH: process.env.PATH,
      PORT: String(await freePort()),
      RUNTIME_DIR: runtimeDir,
      REDIS_PREFIX: `${uniqueName('secrets')}:`,
      LOG_LEVEL: 'info',
      MONGODB_URI: state.mongoUri,
      MONGODB_DB: dbName,
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_DELAY_MS: '200',
      // The test polls: the CLI's user has no plan, and the default 30 a minute would refuse it.
      DEFAULT_RATE_LIMIT: '100000',
    };
  });
  after(async () => {
    await shutDown(service);
    await receiver?.close();
    fs.rmSync(runtimeDir, { recursive: true, force: true });
    await mongoose.connection
      .useDb(dbName)
      .dropDatabase()
      .catch(() => undefined);
  });

  it('adds a webhook with no secret set; after a restart its deliveries still verify with the same secret', async () => {
    const first = await start();
    const said = lines(first).filter((l) => l.name === 'linkqr-launcher' && l.generated);
    expect(said, 'one line at start saying so').to.have.length(1);
    expect(said[0]?.generated).to.have.members(['WEBHOOK_SECRET_KEY', 'SESSION_SECRET']);
    expect(said[0]?.dir).to.equal(path.join(runtimeDir, 'secrets'));
    expect(fs.statSync(path.join(runtimeDir, 'secrets')).mode & 0o777).to.equal(0o700);
    for (const name of ['webhook-secret-key', 'session-secret']) {
      expect(fs.statSync(secretFile(name)).mode & 0o777, name).to.equal(0o600);
    }

    // Issue 27, item 5: while no account exists, the front page gives the command that makes one.
    const front = await request(first.url, '/');
    expect(front.status).to.equal(200);
    expect(front.text).to.include('user:create --email you@example.com');
    const username = uniqueName('hooks');
    const [user] = await cli<{ id: number; apiKey: string }>(env, [
      'user:create',
      '--email',
      `${username}@example.test`,
      '--username',
      username,
    ]);
    apiKey = user?.apiKey as string;
    expect((await request(first.url, '/')).text).to.not.include('user:create');
    userId = user?.id as number;
    const added = await client(first.url, apiKey).post<{ id: number; secret: string }>(
      '/api/webhook/add',
      { url: receiver.url, events: ['link.created'] },
    );
    expect(added.status, added.text).to.equal(200);
    webhook = added.body;
    const before = await deliveredFor('https://example.com/before-restart');
    verifySignature(before.signature, before.body, webhook.secret);
    await stop();

    const second = await start();
    const reused = lines(second).filter((l) => l.name === 'linkqr-launcher' && l.reused);
    expect(reused).to.have.length(1);
    expect(reused[0]?.reused).to.have.members(['WEBHOOK_SECRET_KEY', 'SESSION_SECRET']);
    expect(lines(second).some((l) => l.generated)).to.equal(false);
    const after = await deliveredFor('https://example.com/after-restart');
    verifySignature(after.signature, after.body, webhook.secret);
    await stop();

    const key = fs.readFileSync(secretFile('webhook-secret-key'), 'utf8').trim();
    const sessionSecret = fs.readFileSync(secretFile('session-secret'), 'utf8').trim();
    expect(key).to.match(/^[0-9a-f]{64}$/);
    const log = outputs.join('');
    expect(log).to.include('WEBHOOK_SECRET_KEY');
    expect(log.includes(key), 'the log shows the webhook key').to.equal(false);
    expect(log.includes(sessionSecret), 'the log shows the session secret').to.equal(false);
  });

  it('names the webhooks that can no longer be signed when the generated key is lost', async () => {
    const oldKey = fs.readFileSync(secretFile('webhook-secret-key'), 'utf8');
    fs.rmSync(secretFile('webhook-secret-key'));
    const running = await start();
    expect(fs.readFileSync(secretFile('webhook-secret-key'), 'utf8')).to.not.equal(oldKey);
    const generated = lines(running).find((l) => l.generated);
    expect(generated?.generated).to.deep.equal(['WEBHOOK_SECRET_KEY']);
    const report = await until(
      async () => lines(running).find((l) => l.name === 'linkqr-api' && l.users),
      'the API says which webhooks cannot be decrypted',
      20_000,
    );
    expect(report.level).to.equal(50);
    expect(report.webhooks).to.equal(1);
    expect(report.users).to.deep.equal([{ userId, count: 1, ids: [webhook.id] }]);
    expect(report.msg).to.include(`user ${userId}: webhook ${webhook.id}`);
    expect(report.msg).to.include(secretFile('webhook-secret-key'));

    // Its deliveries fail, saying why, instead of never arriving without a word.
    await client(running.url, apiKey).post('/api/url/add', { url: 'https://example.com/lost' });
    const deliveries = await until(
      async () => {
        const res = await client(running.url, apiKey).get<{
          data: { deliveries: Array<{ error: string | null }> };
        }>(`/api/webhook/${webhook.id}/deliveries`);
        return res.body.data.deliveries.find((d) => d.error) ? res.body.data.deliveries : undefined;
      },
      'a failed delivery',
      // The worker runs at a lower priority than the API: on a busy machine it is served last.
      60_000,
    );
    expect(deliveries.find((d) => d.error)?.error).to.include('WEBHOOK_SECRET_KEY');
    await stop();
  });
});
