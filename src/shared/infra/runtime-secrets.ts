import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The secrets a start with nothing configured can make for itself. Each is kept in a file of its
 * own under RUNTIME_DIR/secrets (the folder 0700, the files 0600), beside the data it protects, so
 * a restart finds the same one; a value given in the environment always wins.
 */
export const RUNTIME_SECRETS = [
  {
    variable: 'WEBHOOK_SECRET_KEY',
    file: 'webhook-secret-key',
    generate: () => randomBytes(32).toString('hex'),
    valid: (value: string) => /^[0-9a-fA-F]{64}$/.test(value),
  },
  {
    variable: 'SESSION_SECRET',
    file: 'session-secret',
    generate: () => randomBytes(32).toString('base64url'),
    valid: (value: string) => value.length >= 32,
  },
] as const;

export type RuntimeSecretName = (typeof RUNTIME_SECRETS)[number]['variable'];

export interface RuntimeSecrets {
  /** RUNTIME_DIR/secrets, absolute. */
  dir: string;
  /** The values to put in the environment of the processes (never logged). */
  env: Partial<Record<RuntimeSecretName, string>>;
  /** Made now: none existed. */
  generated: RuntimeSecretName[];
  /** Read from the files an earlier start wrote. */
  reused: RuntimeSecretName[];
}

export class RuntimeSecretError extends Error {
  override name = 'RuntimeSecretError';
}

export function secretsDir(runtimeDir: string): string {
  return path.resolve(runtimeDir, 'secrets');
}

export function secretFile(runtimeDir: string, variable: RuntimeSecretName): string {
  const secret = RUNTIME_SECRETS.find((s) => s.variable === variable);
  if (!secret) throw new Error(`no runtime secret ${variable}`);
  return path.join(secretsDir(runtimeDir), secret.file);
}

function readSecret(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Writes `value` to `file` only if no file is there yet, atomically: the value is written whole to
 * a file of this process first, then linked into place, which fails if another process (the API
 * and the worker of docker compose start together) got there first. Answers the value that won.
 */
function createOnce(file: string, value: string): { value: string; created: boolean } {
  const scratch = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(scratch, `${value}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(scratch, file);
    return { value, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { value: readSecret(file) ?? value, created: false };
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}

/**
 * The secrets the environment does not give: read from RUNTIME_DIR/secrets, or generated there
 * once. A file that holds something unusable stops the start, naming the file, rather than being
 * replaced (that would lose what the old value encrypted).
 */
export function ensureRuntimeSecrets(runtimeDir: string, env: NodeJS.ProcessEnv): RuntimeSecrets {
  const dir = secretsDir(runtimeDir);
  const result: RuntimeSecrets = { dir, env: {}, generated: [], reused: [] };
  const missing = RUNTIME_SECRETS.filter((secret) => !env[secret.variable]);
  if (missing.length === 0) return result;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  for (const secret of missing) {
    const file = path.join(dir, secret.file);
    let value = readSecret(file);
    if (value === undefined) {
      const written = createOnce(file, secret.generate());
      value = written.value;
      (written.created ? result.generated : result.reused).push(secret.variable);
    } else {
      // A copy restored from a backup may come back readable by others.
      fs.chmodSync(file, 0o600);
      result.reused.push(secret.variable);
    }
    if (!secret.valid(value)) {
      throw new RuntimeSecretError(
        `${file} does not hold a usable ${secret.variable}: restore it, or set ${secret.variable}`,
      );
    }
    result.env[secret.variable] = value;
  }
  return result;
}

/** The one line a start says about them (names and the folder: never a value). */
export function describeRuntimeSecrets(secrets: RuntimeSecrets): string | undefined {
  const parts: string[] = [];
  if (secrets.generated.length) parts.push(`generated ${secrets.generated.join(' and ')}`);
  if (secrets.reused.length) parts.push(`using ${secrets.reused.join(' and ')}`);
  if (!parts.length) return undefined;
  return (
    `${parts.join('; ')} in ${secrets.dir} (mode 0600, kept between starts; ` +
    'in production set them in the environment: README "Secrets")'
  );
}

/** The fields of that line, each only when it has something to say. */
export function runtimeSecretsFields(secrets: RuntimeSecrets): Record<string, unknown> {
  return {
    dir: secrets.dir,
    ...(secrets.generated.length ? { generated: secrets.generated } : {}),
    ...(secrets.reused.length ? { reused: secrets.reused } : {}),
  };
}
