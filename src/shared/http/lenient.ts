import type Joi from 'joi';

/** The two "nothing" values GemPixel clients send for an optional field they do not use. */
const BLANKS = ['', null] as const;
type Blank = (typeof BLANKS)[number];

interface KeyDescription {
  flags?: { presence?: string };
  allow?: unknown[];
}

/** Removes the forgiven blanks from a request object (a copy; the input is left as it was). */
export type BlankStripper = (value: Record<string, unknown>) => Record<string, unknown>;

const unchanged: BlankStripper = (value) => value;

/**
 * GemPixel's leniency, worked out once per schema when the route is built: an optional top-level
 * field sent as `""` or `null` means "not given", unless the field's own schema gives that value a
 * meaning (on update, `null` or `""` clears an expiry, a password, a redirect...). Required fields
 * stay strict, and unknown fields still fail by name: only the blanks of known, optional fields
 * are forgiven, so typos stay visible. Stripping them before validation costs a few property
 * reads per request, where a joi `.empty()` rule per field would cost a schema run each.
 */
export function blankStripper(schema: Joi.Schema): BlankStripper {
  if (schema.type !== 'object') return unchanged;
  const described = schema.describe() as { keys?: Record<string, KeyDescription> };
  const forgiven = new Map<string, Blank[]>();
  for (const [key, description] of Object.entries(described.keys ?? {})) {
    const presence = description.flags?.presence;
    if (presence === 'required' || presence === 'forbidden') continue;
    const allowed = description.allow ?? [];
    const blanks = BLANKS.filter((blank) => !allowed.includes(blank));
    if (blanks.length) forgiven.set(key, blanks);
  }
  if (forgiven.size === 0) return unchanged;
  const isForgiven = (key: string, value: unknown) =>
    forgiven.get(key)?.includes(value as Blank) ?? false;
  return (value) => {
    const keys = Object.keys(value);
    if (!keys.some((key) => isForgiven(key, value[key]))) return value;
    // A fresh object rather than `delete`, which would push V8 into slow dictionary mode.
    const result: Record<string, unknown> = {};
    for (const key of keys) if (!isForgiven(key, value[key])) result[key] = value[key];
    return result;
  };
}
