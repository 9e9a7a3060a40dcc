/**
 * The target URL with the link's parameters appended, keeping the target's own query (byte for
 * byte) and fragment; a parameter the target already sets keeps the target's value.
 */
export function withParameters(
  url: string,
  parameters: ReadonlyArray<{ name: string; value: string }>,
): string {
  if (!parameters.length) return url;
  const hashAt = url.indexOf('#');
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  let existing: URLSearchParams;
  try {
    existing = new URL(base).searchParams;
  } catch {
    return url;
  }
  const added = parameters
    .filter((p) => !existing.has(p.name))
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p.value)}`);
  if (!added.length) return url;
  const separator = base.includes('?')
    ? base.endsWith('?') || base.endsWith('&')
      ? ''
      : '&'
    : '?';
  return `${base}${separator}${added.join('&')}${fragment}`;
}
