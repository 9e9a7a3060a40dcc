import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import ProgressBar from 'progress';
import { parseFlags, positiveInt, required, UsageError } from '../cli/args';
import type { CliCommand, CliContext } from '../cli/command';
import { AppError } from '../shared/errors/app-error';
import { itemValidator } from '../shared/http/bulk';
import { nextId } from '../shared/ids/counter.model';
import { ImportFileChunk, ImportJob, type ImportRecord } from './import.model';
import { createImportQueue } from './imports.jobs';
import { presentImport } from './imports.presenter';
import { importCreateSchema, type ImportCreate } from './imports.schemas';
import { revealImport, startImport } from './imports.service';

const CHUNK_BYTES = 1024 * 1024;
const checkImport = itemValidator<ImportCreate>(importCreateSchema);

/** A local file into the import's stored chunks, as an upload is (the worker reads them). */
async function storeFile(importId: number, input: Readable): Promise<void> {
  let pending: Buffer[] = [];
  let size = 0;
  let n = 0;
  const flush = async () => {
    if (!size) return;
    n += 1;
    await ImportFileChunk.create({ importId, n, data: Buffer.concat(pending) });
    pending = [];
    size = 0;
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    pending.push(chunk);
    size += chunk.length;
    if (size >= CHUNK_BYTES) await flush();
  }
  await flush();
}

type Report = Pick<ImportRecord, 'status' | 'total' | 'imported' | 'skipped' | 'failed'>;
const line = (r: Report) =>
  `${r.status}: ${r.imported} imported, ${r.skipped} skipped, ${r.failed} failed of ${r.total}`;

/** Follows the job until it ends: a bar on a terminal, a plain line per change elsewhere. */
async function follow(id: number, stream: NodeJS.WriteStream): Promise<ImportRecord> {
  let bar: ProgressBar | undefined;
  let last = '';
  for (;;) {
    const job = await ImportJob.findOne({ id }).lean<ImportRecord>();
    if (!job) throw new Error(`import ${id} disappeared`);
    const done = job.imported + job.skipped + job.failed;
    if (stream.isTTY && job.total > 0) {
      bar ??= new ProgressBar('importing [:bar] :current/:total :percent :etas :counts', {
        total: job.total,
        width: 30,
        stream,
      });
      bar.total = Math.max(job.total, done);
      const counts = `${job.imported} imported, ${job.skipped} skipped, ${job.failed} failed`;
      bar.update(bar.total ? Math.min(1, done / bar.total) : 0, { counts });
    } else if (!stream.isTTY && line(job) !== last) {
      last = line(job);
      stream.write(`${last}\n`);
    }
    if (job.status === 'done' || job.status === 'failed') {
      if (bar && !bar.complete) bar.terminate();
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const importCommand: CliCommand = {
  name: 'import',
  usage:
    'import --user ID --from SOURCE [--url URL] [--key-env VAR | --key KEY] [--file PATH] [--on-conflict skip|rename] [--no-wait]',
  async run(argv, context?: CliContext) {
    const flags = parseFlags(
      argv,
      ['user', 'from', 'url', 'key', 'key-env', 'file', 'on-conflict'],
      ['no-wait'],
    );
    const userId = positiveInt(flags, 'user');
    const keyEnv = flags['key-env'];
    const key = keyEnv ? process.env[keyEnv] : flags.key;
    if (keyEnv && !key) throw new UsageError(`--key-env ${keyEnv} names an empty variable`);
    const input = checkImport({
      source: required(flags, 'from'),
      ...(flags.url ? { url: flags.url } : {}),
      ...(key ? { key } : {}),
      ...(flags['on-conflict'] ? { onConflict: flags['on-conflict'] } : {}),
    });
    if (input instanceof AppError) throw new UsageError(input.message);
    if (!context?.config || !context.redis || !context.keys || !context.logger)
      throw new Error('the import command needs Redis and the configuration');
    const { config } = context;
    const queue = createImportQueue({
      connection: context.redis,
      keys: context.keys,
      logger: context.logger,
    });
    try {
      let upload: { importId: number } | undefined;
      if (flags.file) {
        upload = { importId: await nextId('imports') };
        await storeFile(upload.importId, createReadStream(flags.file));
      }
      const ctx = {
        queue,
        secretKey: config.webhookSecretKey,
        policy: { allowPrivate: config.importAllowPrivate },
      };
      const job = await startImport(userId, input, ctx, upload).catch(async (err: unknown) => {
        if (upload) await ImportFileChunk.deleteMany({ importId: upload.importId });
        throw err;
      });
      if (flags['no-wait'] === 'true') return presentImport(job);
      const progress = context.progress ?? process.stderr;
      progress.write(`import ${job.id} queued; the worker runs it (npm start or npm run worker)\n`);
      await follow(job.id, progress);
      const { job: done, secrets } = await revealImport(userId, job.id, config.webhookSecretKey);
      return presentImport(done, secrets);
    } finally {
      await queue.close();
    }
  },
};
