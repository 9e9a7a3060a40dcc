import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { UsageError } from '../src/cli/args';
import type { CliContext } from '../src/cli/command';
import { importCommand } from '../src/imports/imports.cli';
import { Link } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { startTestImportWorker } from './support/imports';
import { rejection } from './support/rejection';
import { createTestUser, uniqueName } from './support/users';

/** A stream that records what was written, as a terminal (`tty`) or a pipe. */
function output(tty: boolean) {
  const stream = new PassThrough() as PassThrough & Record<string, unknown>;
  const written: string[] = [];
  stream.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
  Object.assign(stream, {
    isTTY: tty,
    columns: 100,
    clearLine: () => true,
    cursorTo: () => true,
    moveCursor: () => true,
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => written.join('') };
}

describe('CLI import', function () {
  this.timeout(30_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  let dir: string;
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
    dir = mkdtempSync(path.join(tmpdir(), 'linkqr-import-'));
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  const contextWith = (progress: NodeJS.WriteStream): CliContext => ({
    apiKeys: { invalidate: async () => undefined },
    config: app.config,
    redis: app.deps.redis,
    keys: app.deps.keys,
    logger: app.deps.logger,
    progress,
  });

  it('imports a CSV file for a user, printing plain progress lines off a terminal', async () => {
    const { user } = await createTestUser();
    const stem = uniqueName('cl');
    const file = path.join(dir, `${stem}.csv`);
    const rows = Array.from({ length: 250 }, (_, i) => `${stem}-${i},https://example.com/${i}`);
    writeFileSync(file, ['alias,url', ...rows].join('\n'));
    const out = output(false);
    const report = await importCommand.run(
      ['--user', String(user.id), '--from', 'csv', '--file', file],
      contextWith(out.stream),
    );
    expect(report).to.deep.include({ source: 'csv', status: 'done', total: 250, imported: 250 });
    expect(await Link.countDocuments({ userId: user.id })).to.equal(250);
    const lines = out.text().trim().split('\n');
    expect(lines[0]).to.match(/^import \d+ queued; the worker runs it/);
    expect(lines.at(-1)).to.equal('done: 250 imported, 0 skipped, 0 failed of 250');
  });

  it('draws a progress bar on a terminal', async () => {
    const { user } = await createTestUser();
    const stem = uniqueName('cb');
    const file = path.join(dir, `${stem}.csv`);
    writeFileSync(file, `alias,url\n${stem},https://example.com/bar\n`);
    const out = output(true);
    await importCommand.run(
      ['--user', String(user.id), '--from', 'csv', '--file', file],
      contextWith(out.stream),
    );
    expect(out.text()).to.match(/importing \[=+\] 1\/1 100%/);
  });

  it('refuses a missing source and an unknown one with a usage error', async () => {
    const out = output(false);
    const missing = await rejection(importCommand.run(['--user', '1'], contextWith(out.stream)));
    expect(missing).to.be.instanceOf(UsageError);
    expect(missing.message).to.equal('--from is required');
    const unknown = await rejection(
      importCommand.run(['--user', '1', '--from', 'yourls'], contextWith(out.stream)),
    );
    expect(unknown.message).to.equal(
      'source must be one of [gempixel, linkqr, shlink, kutt, bitly, csv]',
    );
  });
});
