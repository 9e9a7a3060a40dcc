import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm start` writes the embedded engine's address here so the CLI, a separate process, can reach
 * the same in-memory database the running service uses.
 */
export const EMBEDDED_URI_FILE = path.resolve('data', 'embedded-mongodb.uri');

export function writeEmbeddedUri(uri: string): void {
  fs.mkdirSync(path.dirname(EMBEDDED_URI_FILE), { recursive: true });
  fs.writeFileSync(EMBEDDED_URI_FILE, `${uri}\n`, { mode: 0o600 });
}

export function readEmbeddedUri(): string | undefined {
  try {
    return fs.readFileSync(EMBEDDED_URI_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function removeEmbeddedUri(): void {
  fs.rmSync(EMBEDDED_URI_FILE, { force: true });
}
