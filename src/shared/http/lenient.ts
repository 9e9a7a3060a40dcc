import Joi from 'joi';

/** The two "nothing" values GemPixel clients send for an optional field they do not use. */
const BLANKS = ['', null] as const;

interface KeyDescription {
  flags?: { presence?: string };
  allow?: unknown[];
}

/**
 * GemPixel's leniency, applied to a request schema once when the route is built: an optional
 * top-level field sent as `""` or `null` means "not given", unless the field's own schema gives
 * that value a meaning (on update, `null` or `""` clears an expiry, a password, a redirect...).
 * Required fields stay strict, and unknown fields are still refused by name: only the blanks of
 * known, optional fields are forgiven, so typos stay visible.
 */
export function lenient(schema: Joi.Schema): Joi.Schema {
  if (schema.type !== 'object') return schema;
  const described = schema.describe() as { keys?: Record<string, KeyDescription> };
  let result = schema as Joi.ObjectSchema;
  for (const [key, description] of Object.entries(described.keys ?? {})) {
    const presence = description.flags?.presence;
    if (presence === 'required' || presence === 'forbidden') continue;
    const allowed = description.allow ?? [];
    const blanks = BLANKS.filter((blank) => !allowed.includes(blank));
    if (blanks.length === 0) continue;
    result = result.fork(key, (field) => field.empty(Joi.valid(...blanks)));
  }
  return result;
}
