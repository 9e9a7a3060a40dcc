import type { RequestHandler } from 'express';
import { validation } from '../errors/app-error';

/** In a `u` regex a valid surrogate pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The dotted path of the first string (key or value) holding a lone surrogate, if any. */
export function findLoneSurrogate(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path.join('.') : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, key];
    if (LONE_SURROGATE.test(key)) return at.join('.');
    const found = findLoneSurrogate(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * JSON allows `"\ud800"`, but no encoder downstream (URI components, UTF-8 for QR payloads and
 * BSON) can represent it: refused here, once, with a 422 naming the field.
 */
export const requireWellFormedStrings: RequestHandler = (req, _res, next) => {
  const field = findLoneSurrogate(req.body);
  if (field === undefined) return next();
  next(validation(`${field || 'body'} must not contain a lone surrogate`));
};
