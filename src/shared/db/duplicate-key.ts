export type DuplicateKeyError = Error & { code: 11000; keyValue?: Record<string, unknown> };

/** MongoDB's duplicate-key error (code 11000), optionally on a given field of the unique index. */
export function isDuplicateKeyError(err: unknown, field?: string): err is DuplicateKeyError {
  const e = err as { code?: unknown; keyValue?: Record<string, unknown> } | null;
  if (!e || e.code !== 11000) return false;
  return field === undefined || (e.keyValue !== undefined && field in e.keyValue);
}
