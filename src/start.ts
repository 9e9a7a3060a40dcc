import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import path from 'node:path';
import { loadConfig } from './config';
import { removeEmbeddedUri, writeEmbeddedUri } from './shared/infra/embedded-uri-file';
import { forkExecArgv } from './shared/infra/heap-growth';
import { LISTEN_AFTER_WORKER, relayWorkerReady } from './shared/infra/launcher-signals';
import { connectMongo, disconnectMongo } from './shared/infra/mongo';
import { migrate } from './cli/migrate.cli';
import { createLogger, resolveLogFormat } from './shared/infra/logger';
import { mongodPaths, startLocalEngine } from './shared/infra/mongo-engine/local-engine';
import { logRuntimeSecrets } from './shared/infra/process-config';
import { ensureRuntimeSecrets } from './shared/infra/runtime-secrets';
import { announceStart, describeData, type StartFacts } from './shared/infra/start-banner';

/** The worker's nice value under `npm start` (0 is the API's; 19 the lowest priority). */
const WORKER_NICENESS = 10;

/**
 * Zero-config launcher (`npm start`): the API and the QR worker as two child processes sharing one
 * database. Without MONGODB_URI it starts a local engine first (a mongod with its data under
 * RUNTIME_DIR, else the in-memory engine) and hands its address to both.
 */
async function start(): Promise<void> {
  const config = loadConfig(process.env);
  const format = resolveLogFormat(config.newcomer.logFormat);
  const logger = createLogger(config.logLevel, 'linkqr-launcher', undefined, format);
  const env = { ...process.env };
  const facts: StartFacts = {
    publicUrl: config.publicUrl,
    data: describeData({ kind: 'uri', uri: config.mongodbUri ?? '' }),
    secrets: undefined,
  };
  // Every feature works from the first start: what no one configured is made once and kept.
  if (config.newcomer.generateSecrets !== false) {
    const secrets = ensureRuntimeSecrets(config.runtimeDir, process.env);
    Object.assign(env, secrets.env);
    logRuntimeSecrets(logger, secrets);
    if (secrets.generated.length || secrets.reused.length) facts.secrets = secrets.dir;
  }
  let stopEngine: (() => Promise<void>) | undefined;
  if (!config.mongodbUri) {
    const engine = await startLocalEngine(config, logger);
    env.MONGODB_URI = engine.uri;
    stopEngine = engine.stop;
    writeEmbeddedUri(config.runtimeDir, engine.uri);
    facts.data = describeData(
      engine.engine === 'mongod'
        ? { kind: 'mongod', dataDir: mongodPaths(config.runtimeDir).dataDir }
        : { kind: 'memory' },
    );
  }

  // The migration step, here rather than in each process: the API and the worker only verify.
  await connectMongo(env.MONGODB_URI ?? '', config.mongodbDbName);
  const migrated = await migrate();
  await disconnectMongo();
  if (migrated.linksUpdated || migrated.accountsBackfilled)
    logger.info(migrated, 'database migrated');

  const ext = path.extname(__filename);
  const execArgv = forkExecArgv(process.execArgv);
  // Both start at once; the API listens once the worker says its render threads are warm.
  const api = fork(path.join(__dirname, `main${ext}`), [LISTEN_AFTER_WORKER], { env, execArgv });
  const worker = fork(path.join(__dirname, '..', 'workers', `main${ext}`), [], { env, execArgv });
  relayWorkerReady(worker, api);
  api.once('message', () =>
    announceStart(facts, format, (fields, msg) => logger.info(fields, msg)),
  );
  // Sharing a core, a visitor waiting for a redirect comes before a batch of clicks to store or
  // a code to render: neither is waited on, and both catch up as soon as the API is idle.
  if (worker.pid !== undefined) {
    try {
      setPriority(worker.pid, WORKER_NICENESS);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not lower the worker priority');
    }
  }
  const children: ChildProcess[] = [api, worker];

  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    );
    removeEmbeddedUri(config.runtimeDir);
    // The exit code must survive a database that fails to stop.
    await stopEngine?.().catch((err: unknown) =>
      logger.error({ err }, 'the local database did not stop cleanly'),
    );
    process.exit(code);
  };
  for (const child of children) {
    child.once('exit', (code) => {
      if (!stopping) {
        logger.error({ pid: child.pid, code }, 'a linkqr process exited; stopping the others');
        void stopAll(code ?? 1);
      }
    });
  }
  process.once('SIGTERM', () => void stopAll(0));
  process.once('SIGINT', () => void stopAll(0));
}

start().catch((err: unknown) => {
  process.stderr.write(
    `linkqr failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
