import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { state } from './support/environment';
import { request } from './support/http';
import { freePort, launch, root, shutDown, type Launched } from './support/launcher';
import { uniqueName } from './support/users';

/** SGR colour codes pino-pretty and the banner write on a terminal. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const PRETTY_LINE = /^\[\d\d:\d\d:\d\d\] (INFO|WARN|ERROR): (start|api|worker) +\S/;

interface Terminal {
  child: ChildProcess;
  /** Everything the terminal showed, colours removed, `\r\n` as `\n`. */
  screen(): string;
  exit: Promise<number | null>;
}

/**
 * `npm start`'s launcher on a pseudo-terminal, as a person runs it: util-linux `script` gives it a
 * tty for stdin, stdout and stderr, and Ctrl-C is typed into that tty.
 */
function onTerminal(env: NodeJS.ProcessEnv): Terminal {
  // `exec`: the launcher itself, not a shell around it, is what Ctrl-C reaches on the terminal.
  const command = `exec ${process.execPath} --import tsx src/start.ts`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let shown = '';
  child.stdout?.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // The terminal echoes the Ctrl-C typed into it as `^C`, as any terminal does.
  const screen = () => shown.replace(ANSI, '').replace(/\r\n/g, '\n').replace(/\^C/g, '');
  return { child, exit, screen };
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Processes of one test's service, found by the unique Redis prefix in their environment. */
function processesWith(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('zero-config start: a terminal a person can read (issue 27)', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const prefixes: string[] = [];

  async function environment(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
    const runtimeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-terminal-'));
    dirs.push(runtimeDir);
    const prefix = `${uniqueName('terminal')}:`;
    prefixes.push(`REDIS_PREFIX=${prefix}`);
    return {
      PATH: process.env.PATH,
      TERM: 'xterm-256color',
      PORT: String(await freePort()),
      WORKER_PORT: String(await freePort()),
      RUNTIME_DIR: runtimeDir,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'info',
      // The suite's own engine: this test is about the terminal, not about starting one.
      MONGODB_URI: state.mongoUri,
      MONGODB_DB: `linkqr_terminal_${prefix.slice(0, -1)}`,
      ...extra,
    };
  }

  async function runOnTerminal(env: NodeJS.ProcessEnv): Promise<string> {
    const terminal = onTerminal(env);
    try {
      await until(
        async () =>
          terminal.child.exitCode !== null ||
          ((await request(`http://127.0.0.1:${env.PORT}`, '/readyz').catch(() => undefined))
            ?.status === 200 &&
            /linkqr is (running|ready)/.test(terminal.screen()) &&
            terminal.screen().includes('linkqr worker started')),
        'the service, its banner and the worker',
      );
      expect(terminal.child.exitCode, terminal.screen()).to.equal(null);
      // Ctrl-C, typed into the terminal: the launcher stops the API and the worker, then itself.
      terminal.child.stdin?.write('\x03');
      expect(await terminal.exit, terminal.screen()).to.equal(0);
      return terminal.screen();
    } finally {
      if (terminal.child.exitCode === null) terminal.child.kill('SIGKILL');
    }
  }

  after(() => {
    // Should a Ctrl-C have gone unheard, nothing of this test stays behind.
    for (const marker of prefixes) {
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    }
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('on a terminal: readable lines with time, level, process and message, and a start banner', async () => {
    const env = await environment();
    const screen = await runOnTerminal(env);
    const lines = screen.split('\n').filter((line) => line.trim());
    expect(
      lines.filter((line) => line.startsWith('{')),
      'JSON lines',
    ).to.deep.equal([]);
    const logLines = lines.filter((line) => PRETTY_LINE.test(line));
    // The three processes each speak for themselves, with the fields that matter inline.
    expect(
      logLines.some((l) =>
        /INFO: start +generated WEBHOOK_SECRET_KEY and SESSION_SECRET in /.test(l),
      ),
    ).to.equal(true);
    expect(
      logLines.some((l) =>
        /INFO: api +linkqr API listening {2}port=\d+ publicUrl=http:\/\/localhost:\d+$/.test(l),
      ),
    ).to.equal(true);
    expect(
      logLines.some((l) => /INFO: worker +linkqr worker started {2}port=\d+$/.test(l)),
    ).to.equal(true);
    expect(
      logLines.some((l) => /INFO: api +shutting down {2}signal=SIG(INT|TERM)$/.test(l)),
    ).to.equal(true);

    const publicUrl = `http://localhost:${env.PORT}`;
    const banner = screen.slice(screen.indexOf('linkqr is running'));
    expect(banner).to.include(`Service    ${publicUrl}\n`);
    expect(banner).to.include(`Dashboard  ${publicUrl}/app\n`);
    expect(banner).to.include(`API docs   ${publicUrl}/docs\n`);
    expect(banner).to.match(/Data {7}the MongoDB at mongodb:\/\/127\.0\.0\.1:\d+\/\S*\n/);
    expect(banner).to.include(`Secrets    ${path.join(env.RUNTIME_DIR as string, 'secrets')}\n`);
    expect(banner).to.include(
      "npm run -s cli -- user:create --email you@example.com --username you --password 'a long passphrase'",
    );
    // The generated secrets themselves never reach the terminal.
    for (const file of ['webhook-secret-key', 'session-secret']) {
      const value = fs.readFileSync(path.join(env.RUNTIME_DIR as string, 'secrets', file), 'utf8');
      expect(screen.includes(value.trim()), file).to.equal(false);
    }
  });

  it('with LOG_FORMAT=json, JSON lines even on a terminal', async () => {
    const env = await environment({ LOG_FORMAT: 'json' });
    const screen = await runOnTerminal(env);
    const lines = screen.split('\n').filter((line) => line.trim());
    expect(lines.length).to.be.greaterThan(3);
    for (const line of lines) expect(() => JSON.parse(line), line).to.not.throw();
  });

  it('off a terminal: JSON lines as before, the banner one of them', async () => {
    const env = await environment();
    let service: Launched | undefined;
    try {
      service = await launch(env);
      const running = service;
      await until(
        () => running.logs.some((l) => l.msg === 'linkqr is ready'),
        'the ready line',
        20_000,
      );
      const text = running.output.join('');
      for (const line of text.split('\n').filter((l) => l.trim())) {
        expect(() => JSON.parse(line), line).to.not.throw();
      }
      const ready = running.logs.find((l) => l.msg === 'linkqr is ready') as unknown as Record<
        string,
        unknown
      >;
      expect(ready).to.deep.include({
        name: 'linkqr-launcher',
        url: `http://localhost:${env.PORT}`,
        dashboard: `http://localhost:${env.PORT}/app`,
        docs: `http://localhost:${env.PORT}/docs`,
        secrets: path.join(env.RUNTIME_DIR as string, 'secrets'),
        next: "npm run -s cli -- user:create --email you@example.com --username you --password 'a long passphrase'",
      });
    } finally {
      await shutDown(service);
    }
  });
});
