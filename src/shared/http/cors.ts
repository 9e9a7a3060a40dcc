import cors from 'cors';
import { LRUCache } from 'lru-cache';
import { precomputeHeaders, type Middleware } from './security-headers';

/** Headers a browser client may read: the rate-limit state above all. */
export const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
];

/**
 * CORS for /api, mounted before authentication so a preflight (which never carries the key) is
 * answered 204 at once. Allowed origins get their origin reflected; others get no
 * Access-Control-Allow-Origin, so the browser refuses. The key travels in a header, never in a
 * cookie, so credentials stay off.
 */
export function apiCors(origins: readonly string[]): Middleware {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Linkqr-Account'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

/** Origins whose headers are kept; any origin may be sent, so the list is bounded. */
const REMEMBERED_ORIGINS = 1_000;

/**
 * The headers `middleware` (`apiCors`) sets on a `GET` from `origin` (undefined: no Origin
 * header), worked out by the middleware itself once per origin: for a response written before
 * it could run (the hot lists' fast path).
 */
export function corsHeadersFor(middleware: Middleware): (origin: string | undefined) => string[] {
  const byOrigin = new LRUCache<string, string[]>({ max: REMEMBERED_ORIGINS });
  const withoutOrigin = precomputeHeaders(middleware);
  return (origin) => {
    if (origin === undefined) return withoutOrigin;
    let headers = byOrigin.get(origin);
    if (!headers) {
      headers = precomputeHeaders(middleware, { origin });
      byOrigin.set(origin, headers);
    }
    return headers;
  };
}
