import type { RequestHandler } from 'express';
import { validation } from '../errors/app-error';

/** In a `u` regex a valid surrogate pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /\p{Cs}/u;

interface Visit {
  value: unknown;
  key: string | undefined;
  parent: Visit | undefined;
}

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) keys.push(v.key);
  return keys.reverse().join('.');
}

/**
 * The dotted path of the first string (key or value) holding a lone surrogate, if any, in
 * document order. Iterative: however deep the value, the walk never grows the call stack.
 */
export function findLoneSurrogate(value: unknown): string | undefined {
  const stack: Visit[] = [{ value, key: undefined, parent: undefined }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    if (visit.key !== undefined && LONE_SURROGATE.test(visit.key)) return pathOf(visit);
    const current = visit.value;
    if (typeof current === 'string') {
      if (LONE_SURROGATE.test(current)) return pathOf(visit);
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const entries = Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, child] = entries[i] as [string, unknown];
      stack.push({ value: child, key, parent: visit });
    }
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
