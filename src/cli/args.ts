import { parseArgs } from 'node:util';

export class UsageError extends Error {
  override name = 'UsageError';
}

export type Flags = Record<string, string | undefined>;

/**
 * Parses `--name value` flags and the value-less `switches` (read back as `'true'` when given);
 * unknown flags are refused.
 */
export function parseFlags(
  argv: string[],
  allowed: readonly string[],
  switches: readonly string[] = [],
): Flags {
  try {
    const { values } = parseArgs({
      args: argv,
      options: Object.fromEntries([
        ...allowed.map((name) => [name, { type: 'string' as const }]),
        ...switches.map((name) => [name, { type: 'boolean' as const }]),
      ]),
      strict: true,
      allowPositionals: false,
    });
    return Object.fromEntries(
      Object.entries(values).map(([name, value]) => [
        name,
        typeof value === 'boolean' ? String(value) : value,
      ]),
    ) as Flags;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

export function positiveInt(flags: Flags, name: string): number {
  const value = Number(required(flags, name));
  if (!Number.isSafeInteger(value) || value < 1)
    throw new UsageError(`--${name} must be a positive integer`);
  return value;
}
