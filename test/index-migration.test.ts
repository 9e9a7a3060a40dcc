import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { baseEnv } from './support/environment';
import { startApiProcess } from './support/processes';
import { uniqueName } from './support/users';

const root = path.resolve(__dirname, '..');

/** The index keys of a collection in a database of its own (none when it does not exist yet). */
async function indexKeysOf(dbName: string, collection: string): Promise<string[]> {
  const db = mongoose.connection.getClient().db(dbName);
  const indexes = await db
    .collection(collection)
    .listIndexes()
    .toArray()
    .catch(() => []);
  return indexes.map((i) => JSON.stringify(i.key));
}

describe('indexes are built by the migration step, and API processes only verify (issue 22, B2)', () => {
  it('an API on a database without them says so and builds none; db:migrate builds them', async function () {
    this.timeout(90_000);
    const dbName = `linkqr_migrate_${uniqueName('m')}`;
    const env = { ...baseEnv(), MONGODB_DB: dbName, LOG_LEVEL: 'info' };
    const before = await startApiProcess(env);
    const warning = await before.waitForLine(/lacks indexes/);
    expect(JSON.parse(warning).missing).to.include('links {"domainId":1,"alias":1}');
    await before.stop();
    expect((await indexKeysOf(dbName, 'links')).filter((k) => k !== '{"_id":1}')).to.deep.equal([]);

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'db:migrate'],
      { cwd: root, env: { PATH: process.env.PATH, ...env, LOG_LEVEL: 'silent' } },
    );
    expect(JSON.parse(stdout.trim())).to.deep.equal({
      indexes: 'built',
      linksUpdated: 0,
      accountsBackfilled: 0,
    });
    expect(await indexKeysOf(dbName, 'links')).to.include.members([
      '{"domainId":1,"alias":1}',
      '{"userId":1,"clicks":-1,"id":-1}',
      '{"userId":1,"searchKeys":1}',
    ]);

    const after = await startApiProcess(env);
    await after.stop();
    expect(after.lines.filter((l) => l.includes('lacks indexes'))).to.deep.equal([]);
  });
});
