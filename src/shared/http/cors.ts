import cors from 'cors';
import type { RequestHandler } from 'express';

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
export function apiCors(origins: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Linkqr-Account'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
