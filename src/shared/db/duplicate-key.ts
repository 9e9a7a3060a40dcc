export type DuplicateKeyError = Error & { code: 11000; keyValue?: Record<string, unknown> };

/**
 * MongoDB's duplicate-key error (code 11000), optionally on a given field of the unique index.
 * The embedded engine gives no `keyValue`: its message (`dup key: { alias: ... }`) names the field.
 */
export function isDuplicateKeyError(err: unknown, field?: string): err is DuplicateKeyError {
  const e = err as { code?: unknown; keyValue?: Record<string, unknown>; message?: unknown } | null;
  if (!e || e.code !== 11000) return false;
  if (field === undefined) return true;
  if (e.keyValue !== undefined) return field in e.keyValue;
  return typeof e.message === 'string' && e.message.includes(`dup key: { ${field}: `);
}

/**
 * True when an unordered bulk write failed only because some of its documents were already there
 * (every write error is a duplicate key): for idempotent writes, that is success.
 */
export function isOnlyDuplicateKeys(err: unknown): boolean {
  const e = err as { writeErrors?: unknown } | null;
  const writeErrors = [e?.writeErrors ?? []].flat() as Array<{ code?: unknown }>;
  if (writeErrors.length > 0) return writeErrors.every((w) => w.code === 11000);
  return isDuplicateKeyError(err);
}
