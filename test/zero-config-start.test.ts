import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from './support/http';
import { uniqueName } from './support/users';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The README's path for a newcomer: start the service with nothing set, create a user, call the API. */
describe('zero-config start (README path)', function () {
  this.timeout(60_000);
  let service: ChildProcess;
  let url: string;
  let workerUrl: string;
  let env: NodeJS.ProcessEnv;
  let exit: Promise<number | null>;

  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const workerPort = await freePort();
    workerUrl = `http://127.0.0.1:${workerPort}`;
    env = {
      PATH: process.env.PATH,
      PORT: String(port),
      WORKER_PORT: String(workerPort),
      RUNTIME_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-start-')),
      REDIS_PREFIX: `${uniqueName('start')}:`,
      LOG_LEVEL: 'warn',
    };
    service = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
      cwd: root,
      env,
      stdio: 'ignore',
    });
    exit = new Promise((resolve) => service.once('exit', resolve));
    await until(
      async () => ((await request(url, '/readyz')).status === 200 ? true : undefined),
      40_000,
    );
  });
  after(() => {
    if (service.exitCode === null) service.kill('SIGKILL');
  });

  it('creates a user with the CLI, whose key reads the account, and stops cleanly on SIGTERM', async () => {
    const username = uniqueName('newcomer');
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'user:create',
        '--email',
        `${username}@example.test`,
        '--username',
        username,
      ],
      { cwd: root, env },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const created = JSON.parse(lines[0] as string) as {
      id: number;
      username: string;
      apiKey: string;
    };
    const account = await request<{ error: number; data: { username: string } }>(
      url,
      '/api/account',
      { key: created.apiKey },
    );
    expect(account.status).to.equal(200);
    expect(account.body.data.username).to.equal(username);

    // The worker's own health endpoint, as the compose health check calls it.
    await until(
      async () => ((await request(workerUrl, '/healthz')).status === 200 ? true : undefined),
      20_000,
    );
    const health = await request(workerUrl, '/healthz');
    expect(health.body).to.deep.equal({ status: 'ok', mongodb: 'up', redis: 'up', qrWorker: 'up' });

    service.kill('SIGTERM');
    expect(await exit).to.equal(0);
    expect(fs.existsSync(path.join(env.RUNTIME_DIR as string, 'embedded-mongodb.uri'))).to.equal(
      false,
    );
  });
});
