import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../src/shared/infra/mongo-engine/executables';
import { client, request } from './support/http';
import { cli, freePort, launch, shutDown, type Launched } from './support/launcher';
import { uniqueName } from './support/users';

/**
 * The point of running a real mongod: what one `npm start` stored, the next one still has. Runs
 * where a mongod can be found (MONGOD_BINARY or the PATH); none can be installed on the machine
 * this project is built on, so there it is skipped and says so.
 */
describe('zero-config start on a local mongod keeps the data between runs', function () {
  this.timeout(180_000);
  let env: NodeJS.ProcessEnv;
  let service: Launched | undefined;

  before(async function () {
    const found = process.env.MONGOD_BINARY ?? (await findOnPath('mongod', process.env.PATH));
    if (!found) {
      process.stdout.write(
        '      skipped: no mongod on this machine (MONGOD_BINARY is unset and none is on the PATH)\n',
      );
      this.skip();
    }
    env = {
      PATH: process.env.PATH,
      PORT: String(await freePort()),
      RUNTIME_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-persist-')),
      REDIS_PREFIX: `${uniqueName('persist')}:`,
      LOG_LEVEL: 'info',
      ...(process.env.MONGOD_BINARY ? { MONGOD_BINARY: process.env.MONGOD_BINARY } : {}),
    };
  });
  after(async () => {
    await shutDown(service);
    if (env) fs.rmSync(env.RUNTIME_DIR as string, { recursive: true, force: true });
  });

  async function stop(running: Launched): Promise<void> {
    running.process.kill('SIGTERM');
    expect(await running.exit).to.equal(0);
  }

  it('starts, stores a link, stops cleanly, starts again and still serves that link', async () => {
    const dataDir = path.join(env.RUNTIME_DIR as string, 'mongodb');
    service = await launch(env);
    const engine = service.logs.find((l) => l.name === 'linkqr-launcher' && l.engine === 'mongod');
    expect(engine?.dataDir).to.equal(dataDir);

    const username = uniqueName('keeper');
    const [user] = await cli<{ apiKey: string }>(env, [
      'user:create',
      '--email',
      `${username}@example.test`,
      '--username',
      username,
    ]);
    const created = await client(service.url, user?.apiKey).post<{ id: number; shorturl: string }>(
      '/api/url/add',
      { url: 'https://example.com/kept-between-runs' },
    );
    expect(created.status, created.text).to.equal(200);
    await stop(service);
    // mongod empties its lock file only on a clean shutdown.
    expect(fs.readFileSync(path.join(dataDir, 'mongod.lock'), 'utf8')).to.equal('');

    service = await launch(env);
    const again = await client(service.url, user?.apiKey).get<{ details: { longurl: string } }>(
      `/api/url/${created.body.id}`,
    );
    expect(again.status, again.text).to.equal(200);
    expect(again.body.details.longurl).to.equal('https://example.com/kept-between-runs');
    const alias = new URL(created.body.shorturl).pathname;
    const redirect = await request(service.url, alias);
    expect(redirect.headers.get('location')).to.equal('https://example.com/kept-between-runs');
    await stop(service);
  });
});
