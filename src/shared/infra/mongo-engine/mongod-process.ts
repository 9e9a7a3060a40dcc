import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { freePort } from '../free-port';
import { ensureReplicaSetAt, type ReplicaSetStep } from './mongod-replset';

export interface RunningMongod {
  uri: string;
  pid: number;
  /** With `replSet`: what the start did to the set (first start, a new port, nothing). */
  replicaSet?: { name: string; step: ReplicaSetStep };
  /** SIGTERM (mongod's clean shutdown: journal flushed, lock file emptied), then waits for the exit. */
  stop(): Promise<MongodExit>;
}

export interface MongodOptions {
  binary: string;
  dataDir: string;
  /** mongod's own log, appended across runs. */
  logFile: string;
  dbName: string;
  startTimeoutMs?: number;
  /** After this, SIGKILL: wiredTiger's journal recovers the data on the next start. */
  stopTimeoutMs?: number;
  /**
   * Runs it as a single-member replica set of this name (`--replSet`, initiated on the first
   * start), as docker compose does: transactions and change streams work as in production.
   */
  replSet?: string;
  /**
   * Remembers the port between starts: a set stores its member's address, so the same port
   * spares a forced reconfiguration on every start (one is still made when the port is taken).
   */
  portFile?: string;
  /** How long to wait for the member to become primary. */
  primaryTimeoutMs?: number;
}

export interface MongodExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** It overran the stop timeout and was killed. */
  forced: boolean;
}

export class MongodStartError extends Error {
  override name = 'MongodStartError';
}

/** An error or fatal line of mongod's structured log, as one readable sentence. */
export function mongodProblem(line: string): string | undefined {
  let entry: { s?: string; msg?: string; attr?: { error?: unknown; reason?: unknown } };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return undefined;
  }
  if (entry.s !== 'E' && entry.s !== 'F') return undefined;
  const detail = entry.attr?.error ?? entry.attr?.reason;
  const text = typeof detail === 'string' ? detail : detail ? JSON.stringify(detail) : '';
  return text ? `${entry.msg}: ${text}` : entry.msg;
}

function stopProcess(child: ChildProcess, timeoutMs: number): Promise<MongodExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode, forced: false });
  }
  return new Promise((done) => {
    let forced = false;
    const timer = setTimeout(() => {
      forced = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, forced });
    });
    child.kill('SIGTERM');
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function choosePort(portFile: string | undefined): Promise<number> {
  if (portFile && fs.existsSync(portFile)) {
    const remembered = Number(fs.readFileSync(portFile, 'utf8').trim());
    if (Number.isInteger(remembered) && remembered > 0 && remembered < 65536)
      if (await portIsFree(remembered)) return remembered;
  }
  return freePort();
}

/**
 * Starts mongod on a free loopback port (the remembered one when it is free), with `replSet` as
 * a single-member replica set that is primary before this resolves.
 */
export async function startMongod(options: MongodOptions): Promise<RunningMongod> {
  const port = await choosePort(options.portFile);
  const mongod = await spawnMongod(options, port);
  if (options.portFile) fs.writeFileSync(options.portFile, `${port}\n`);
  if (!options.replSet) return mongod;
  const name = options.replSet;
  const primaryTimeoutMs = options.primaryTimeoutMs ?? 60_000;
  try {
    const step = await ensureReplicaSetAt({ name, host: `127.0.0.1:${port}`, primaryTimeoutMs });
    // replicaSet: the driver checks it is talking to this set, and transactions are offered.
    return { ...mongod, uri: `${mongod.uri}?replicaSet=${name}`, replicaSet: { name, step } };
  } catch (err) {
    await mongod.stop();
    const why = err instanceof Error ? err.message : String(err);
    throw new MongodStartError(
      `mongod started but its replica set "${name}" could not be made ready (${why}); its log is ${options.logFile}`,
    );
  }
}

/**
 * Starts mongod on a free loopback port with its data in `dataDir` (wiredTiger, kept between
 * runs). A lock left by a crashed run is mongod's to recover; nothing here deletes files.
 */
function spawnMongod(options: MongodOptions, port: number): Promise<RunningMongod> {
  const { binary, dataDir, logFile, dbName } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 60_000;
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const args = ['--dbpath', dataDir, '--port', String(port), '--bind_ip', '127.0.0.1'];
  args.push('--storageEngine', 'wiredTiger');
  if (options.replSet) args.push('--replSet', options.replSet);
  // Its own process group: a Ctrl-C in the terminal reaches the launcher, which stops mongod only
  // after the API and the worker have finished their last writes.
  const child = spawn(binary, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  // stop() resolves once mongod's last lines are in its log, not just once it has exited.
  const logWritten = new Promise<void>((resolve) => log.once('close', () => resolve()));
  child.stderr?.pipe(log, { end: false });
  // Should the launcher exit without stopping it, mongod still gets its clean-shutdown signal.
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  child.once('close', () => {
    process.removeListener('exit', stopOnExit);
    log.end();
  });

  return new Promise((resolve, reject) => {
    const problems: string[] = [];
    let pending = '';
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      const seen = problems.length ? `: ${problems.join('; ')}` : '';
      const hint = /DBPathInUse|lock file/i.test(seen)
        ? ` (another mongod is using ${dataDir}: a linkqr still running, or one left by a linkqr that was killed; its pid is in ${path.join(dataDir, 'mongod.lock')})`
        : '';
      reject(new MongodStartError(`${message}${seen}${hint}; its log is ${logFile}`));
    };
    const onData = (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const problem = mongodProblem(line);
        if (problem && problems.push(problem) > 5) problems.shift();
        if (/waiting for connections/i.test(line) && !settled) {
          settled = true;
          clearTimeout(timer);
          child.removeListener('close', onEarlyExit);
          child.stdout?.removeListener('data', onData);
          resolve({
            uri: `mongodb://127.0.0.1:${port}/${dbName}`,
            pid: child.pid as number,
            stop: async () => {
              const exit = await stopProcess(child, stopTimeoutMs);
              await logWritten;
              return exit;
            },
          });
        }
      }
    };
    const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(`mongod (${binary}) exited during start-up with ${signal ?? `code ${code}`}`);
    const timer = setTimeout(() => {
      child.removeListener('close', onEarlyExit);
      void stopProcess(child, stopTimeoutMs);
      fail(`mongod (${binary}) was not ready within ${startTimeoutMs} ms`);
    }, startTimeoutMs);
    child.stdout?.pipe(log, { end: false });
    child.stdout?.on('data', onData);
    // 'close', not 'exit': mongod's last log lines (the reason it stopped) are read by then.
    child.once('close', onEarlyExit);
    child.once('error', (err) => {
      child.removeListener('close', onEarlyExit);
      fail(`mongod (${binary}) could not be started (${err.message})`);
    });
  });
}
