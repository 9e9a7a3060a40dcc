export type DuplicateKeyError = Error & { code: 11000; keyValue?: Record<string, unknown> };

/** MongoDB's duplicate-key error (code 11000), optionally on a given field of the unique index. */
export function isDuplicateKeyError(err: unknown, field?: string): err is DuplicateKeyError {
  const e = err as { code?: unknown; keyValue?: Record<string, unknown> } | null;
  if (!e || e.code !== 11000) return false;
  return field === undefined || (e.keyValue !== undefined && field in e.keyValue);
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
