import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../src/shared/infra/mongo-engine/executables';
import { request } from './support/http';
import { eventually } from './support/links';
import { cli, freePort, launch, shutDown, type Launched } from './support/launcher';
import { uniqueName } from './support/users';

/**
 * The README's path for a newcomer on a machine where no mongod can be had (this one: none can be
 * installed and MongoDB's download host is unreachable): start with nothing set, create a user,
 * call the API, all on the in-memory fallback.
 */
describe('zero-config start (README path) where no mongod can be had: the in-memory fallback', function () {
  this.timeout(90_000);
  let service: Launched;
  let env: NodeJS.ProcessEnv;
  const made: string[] = [];

  before(async function () {
    const found = process.env.MONGOD_BINARY ?? (await findOnPath('mongod', process.env.PATH));
    if (found) {
      process.stdout.write(
        `      skipped: this machine has a mongod (${found}), so npm start does not fall back; the persistence test covers it\n`,
      );
      this.skip();
    }
    const runtimeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-start-'));
    made.push(runtimeDir);
    env = {
      PATH: process.env.PATH,
      PORT: String(await freePort()),
      RUNTIME_DIR: runtimeDir,
      REDIS_PREFIX: `${uniqueName('start')}:`,
      LOG_LEVEL: 'warn',
      // The download is refused as on a machine without internet access, wherever this runs:
      // nothing listens on this loopback port, and the cache directory is empty.
      MONGOMS_DOWNLOAD_MIRROR: `http://127.0.0.1:${await freePort()}`,
      MONGOMS_DOWNLOAD_DIR: path.join(runtimeDir, 'mongodb-binaries'),
    };
    service = await launch(env);
  });
  after(async () => {
    await shutDown(service);
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('warns that data is not persisted, saying why no mongod was started and how to keep data', () => {
    const warnings = service.logs.filter((l) => l.name === 'linkqr-launcher' && l.level === 40);
    expect(warnings).to.have.length(2);
    expect(warnings[0]?.engine).to.equal('memory');
    expect(warnings[0]?.reasons?.slice(0, 2)).to.deep.equal([
      'MONGOD_BINARY is not set',
      'no mongod on the PATH',
    ]);
    expect(warnings[0]?.reasons?.[2]).to.match(
      /^the mongod download failed: cannot reach 127\.0\.0\.1:\d+ \(connect ECONNREFUSED/,
    );
    expect(warnings[0]?.msg).to.include(
      'Data is NOT persisted and is lost when the service stops.',
    );
    expect(warnings[1]?.msg).to.include('set MONGODB_URI');
  });

  it('runs the worker at a lower priority than the API (nice 10 more)', () => {
    const children = fs
      .readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map((pid) => {
        try {
          // `pid (comm) state ppid ...`: comm may hold spaces, so read after its closing paren.
          const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
          return { pid: Number(pid), ppid, command };
        } catch {
          return undefined;
        }
      })
      .filter((p) => p?.ppid === service.process.pid);
    const worker = children.find((p) => p?.command.includes(path.join('workers', 'main')));
    const api = children.find((p) => p?.command.includes(path.join('src', 'main')));
    expect(worker, 'the worker process').to.not.equal(undefined);
    expect(api, 'the API process').to.not.equal(undefined);
    expect(os.getPriority(worker!.pid) - os.getPriority(api!.pid)).to.equal(10);
  });

  it('creates a user with the CLI, whose key reads the account, and stops cleanly on SIGTERM', async () => {
    const username = uniqueName('newcomer');
    const lines = await cli<{ apiKey: string }>(env, [
      'user:create',
      '--email',
      `${username}@example.test`,
      '--username',
      username,
    ]);
    expect(lines).to.have.length(1);
    const account = await request<{ error: number; data: { username: string } }>(
      service.url,
      '/api/account',
      { key: lines[0]?.apiKey },
    );
    expect(account.status).to.equal(200);
    expect(account.body.data.username).to.equal(username);

    // The worker's own health endpoint, as the compose health check calls it.
    const workerHealth = () => request(`http://127.0.0.1:${env.WORKER_PORT}`, '/healthz');
    await eventually(
      async () => (await workerHealth().catch(() => undefined))?.status === 200,
      'the worker answers /healthz',
      20_000,
    );
    const health = await workerHealth();
    expect(health.body).to.deep.equal({ status: 'ok', mongodb: 'up', redis: 'up', qrWorker: 'up' });

    service.process.kill('SIGTERM');
    expect(await service.exit).to.equal(0);
    expect(fs.existsSync(path.join(env.RUNTIME_DIR as string, 'embedded-mongodb.uri'))).to.equal(
      false,
    );
  });
});
