import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ProcessInfo {
  pid: number;
  command: string;
  rssKb: number;
  /** CPU time used so far, all threads, user and system (10 ms resolution). */
  cpuMs: number;
}

/** A process tree the bench started in a process group of its own, pinned to one core. */
export interface Pinned {
  child: ChildProcess;
  /** The tree's processes (the launcher, the API, the worker, the engine...). */
  tree(): ProcessInfo[];
  stop(): Promise<void>;
}

const TICK_MS =
  1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout || 100);

function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function describe(pid: number): ProcessInfo | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    const rss = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { pid, command: cmdline, rssKb: Number(rss ?? 0), cpuMs: ticks * TICK_MS };
  } catch {
    return undefined;
  }
}

/** CPU time used so far by one process (all threads, user and system), in ms; 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  return describe(pid)?.cpuMs ?? 0;
}

/** Runs `command` under `taskset -c <core>`, its output appended to `logFile`. */
export function startPinned(
  core: number,
  command: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): Pinned {
  const log = fs.openSync(logFile, 'a');
  const child = spawn('taskset', ['-c', String(core), ...command], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    tree() {
      const pids = fs
        .readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .map(Number);
      const inTree = new Set<number>([child.pid as number]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const pid of pids) {
          const parent = parentOf(pid);
          if (!inTree.has(pid) && parent !== undefined && inTree.has(parent)) {
            inTree.add(pid);
            grew = true;
          }
        }
      }
      return [...inTree].map(describe).filter((p) => p !== undefined);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-(child.pid as number), 'SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(-(child.pid as number), 'SIGKILL');
      }
    },
  };
}

/** The per-core bench measures the built service, as `npm start` runs it. */
export function build(): void {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

/** Polls until the URL answers 200. */
export async function waitForOk(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 in time`);
    await sleep(200);
  }
}

/**
 * Runs the built CLI against the running service (its embedded engine address comes from
 * RUNTIME_DIR). Asynchronously: blocking the bench's event loop for the seconds a CLI start takes
 * on a loaded core would keep fetch from noticing the server close its idle keep-alive sockets,
 * and the next request would be written to a closed one.
 */
export async function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', ...args], { cwd: root, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`cli ${args[0]} failed: ${stderr}`);
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}
