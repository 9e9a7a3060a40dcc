import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm start` writes the embedded engine's address into the runtime directory so the worker and
 * the CLI, separate processes, reach the same in-memory database the running service uses.
 */
function uriFile(runtimeDir: string): string {
  return path.resolve(runtimeDir, 'embedded-mongodb.uri');
}

export function writeEmbeddedUri(runtimeDir: string, uri: string): void {
  fs.mkdirSync(path.resolve(runtimeDir), { recursive: true });
  fs.writeFileSync(uriFile(runtimeDir), `${uri}\n`, { mode: 0o600 });
}

export function readEmbeddedUri(runtimeDir: string): string | undefined {
  try {
    return fs.readFileSync(uriFile(runtimeDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function removeEmbeddedUri(runtimeDir: string): void {
  fs.rmSync(uriFile(runtimeDir), { force: true });
}
