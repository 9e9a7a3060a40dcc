/** Fields whose values never reach the audit log: only that they were set. */
const SECRET = /pass|secret|token|api_?key|^key$|^current$|otp|code$|csrf/i;
const MAX_VALUE = 200;
const MAX_FIELDS = 50;

export const SECRET_MARKER = '[secret]';

function summariseValue(value: unknown): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return null;
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
}

/**
 * What a write changed, as the audit log keeps it: each field the request set with its value
 * (long values shortened), a secret's value replaced by `[secret]`; CSRF tokens left out.
 */
export function summariseChanges(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body).slice(0, MAX_FIELDS)) {
    if (field === '_csrf') continue;
    out[field] = SECRET.test(field) ? SECRET_MARKER : summariseValue(value);
  }
  return out;
}

const TYPES: Record<string, string> = { url: 'link', urls: 'link', keys: 'key', cta: 'overlay' };

/** The record type a write path names: `/api/url/7/update` -> `link`, `/app/account/email` -> `account`. */
export function recordTypeOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  while (segments[0] === 'app' || segments[0] === 'api') segments.shift();
  const first = segments[0] ?? 'unknown';
  return TYPES[first] ?? first;
}

/** The record a write named: its `:id`, else the first numeric path parameter. */
export function recordIdOf(params: Record<string, string>, created: unknown): number | null {
  const candidates = [params.id, ...Object.values(params)];
  for (const value of candidates) {
    if (value !== undefined && /^\d{1,15}$/.test(value)) return Number(value);
  }
  const id = (created as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'number' ? id : null;
}
