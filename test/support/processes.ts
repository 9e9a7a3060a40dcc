import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { freePort } from '../../src/shared/infra/free-port';

export { freePort };

const root = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  /** The log lines (pino JSON) written so far. */
  lines: string[];
  exit: Promise<number | null>;
  /** Resolves with the first log line matching. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** Runs one of the service's entry points (`src/main.ts`, `workers/main.ts`) as its own process. */
export function startService(entry: string, env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    // The log is how the test learns the port and what happened: always on.
    env: { PATH: process.env.PATH, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onLine = (line: string) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  readline.createInterface({ input: child.stdout! }).on('line', onLine);
  readline.createInterface({ input: child.stderr! }).on('line', onLine);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exit,
    waitForLine(pattern, timeoutMs = 60_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no log line matching ${pattern} in ${timeoutMs} ms:\n${lines.join('\n')}`),
            ),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exit.then(() => {
          clearTimeout(timer);
          reject(new Error(`${entry} exited before logging ${pattern}:\n${lines.join('\n')}`));
        });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exit;
    },
  };
}

/** Starts the API process and resolves with its base URL once it listens. */
export async function startApiProcess(
  env: NodeJS.ProcessEnv,
): Promise<ServiceProcess & { url: string }> {
  const service = startService('src/main.ts', { PORT: '0', ...env });
  const line = await service.waitForLine(/linkqr API listening/);
  const { port } = JSON.parse(line) as { port: number };
  return { ...service, url: `http://127.0.0.1:${port}` };
}

/** `user:create` through the CLI, as an operator would, against the database `env` names. */
export async function createUserWithCli(
  env: NodeJS.ProcessEnv,
  flags: Record<string, string>,
): Promise<{ id: number; username: string; apiKey: string }> {
  const args = Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value]);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'user:create', ...args],
    { cwd: root, env: { PATH: process.env.PATH, ...env } },
  );
  return JSON.parse(stdout.trim()) as { id: number; username: string; apiKey: string };
}
