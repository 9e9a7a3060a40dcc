import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from './http';
import { freePort } from '../../src/shared/infra/free-port';

export { freePort };

const run = promisify(execFile);
export const root = path.resolve(__dirname, '..', '..');

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface LogEntry {
  level: number;
  name: string;
  msg: string;
  engine?: string;
  reasons?: string[];
  dataDir?: string;
}

export interface Launched {
  url: string;
  process: ChildProcess;
  exit: Promise<number | null>;
  /** The launcher's and its children's JSON log lines so far. */
  logs: LogEntry[];
  /** Everything they wrote so far, stdout and stderr, as written. */
  output: string[];
}

/** `npm start` as a newcomer runs it (src/start.ts), ready once /readyz answers 200. */
export async function launch(env: NodeJS.ProcessEnv, readyTimeoutMs = 150_000): Promise<Launched> {
  const url = `http://127.0.0.1:${env.PORT}`;
  // The worker serves /healthz and /metrics too: never on the default port other runs may hold.
  env.WORKER_PORT ??= String(await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogEntry[] = [];
  const output: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    output.push(chunk.toString());
    process.stderr.write(chunk);
  });
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output.push(chunk.toString());
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{')) logs.push(JSON.parse(line) as LogEntry);
    }
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let exited = false;
  void exit.then(() => (exited = true));
  await until(
    async () => (exited || (await request(url, '/readyz')).status === 200 ? true : undefined),
    readyTimeoutMs,
  ).catch(async (err: unknown) => {
    child.kill('SIGTERM');
    await exit;
    throw err;
  });
  if (exited) throw new Error(`the service exited before it was ready: ${JSON.stringify(logs)}`);
  return { url, process: child, exit, logs, output };
}

/** The operator CLI, joining the running service as the README shows; returns its one JSON line. */
export async function cli<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: root,
    env,
  });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}

/** Stops a launched service the way an operator would (SIGTERM), so it stops its children too. */
export async function shutDown(service: Launched | undefined): Promise<void> {
  if (!service || service.process.exitCode !== null || service.process.signalCode !== null) return;
  service.process.kill('SIGTERM');
  await service.exit;
}
