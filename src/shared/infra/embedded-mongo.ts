import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface EmbeddedMongo {
  uri: string;
  /** The engine's process, for fault tests that pause or kill it. */
  pid: number | undefined;
  stop(): Promise<void>;
}

const enginePackage = '@jongodb/memory-server-bin-linux-x64-gnu';

export class EmbeddedEngineMissingError extends Error {
  override name = 'EmbeddedEngineMissingError';
}

function binaryPath(): string {
  let pkg: string;
  try {
    pkg = require.resolve(`${enginePackage}/package.json`);
  } catch {
    throw new EmbeddedEngineMissingError(
      `the in-memory engine (${enginePackage}) is not installed: it is an optional dependency, ` +
        `installed on Linux x64 with glibc only and left out of the Docker image; set MONGODB_URI, ` +
        `or put mongod on the PATH (or name it in MONGOD_BINARY)`,
    );
  }
  return path.join(path.dirname(pkg), 'bin', 'jongodb');
}

/**
 * Starts the embedded MongoDB-compatible engine on a free loopback port. It keeps data in memory
 * only; the tests use it when MONGODB_URI is unset, and `npm start` when no mongod can be had.
 */
export async function startEmbeddedMongo(timeoutMs = 15_000): Promise<EmbeddedMongo> {
  const child: ChildProcess = spawn(binaryPath(), ['--host=127.0.0.1', '--port=0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`embedded MongoDB did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`embedded MongoDB exited with code ${code}: ${stderr}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /JONGODB_URI=(\S+)/.exec(buffered);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      child.removeAllListeners('exit');
      resolve({
        uri: match[1],
        pid: child.pid,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 3000).unref();
          }),
      });
    });
  });
}
