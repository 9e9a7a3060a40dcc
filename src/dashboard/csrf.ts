import type { Request, RequestHandler } from 'express';
import { csrfSync } from 'csrf-sync';
import { AppError } from '../shared/errors/app-error';

export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

/** Synchroniser tokens kept in the session: sent back in a header (fetch) or a form field. */
const csrf = csrfSync({
  getTokenFromRequest: (req: Request) => {
    const header = req.headers[CSRF_HEADER];
    if (typeof header === 'string') return header;
    const body = req.body as Record<string, unknown> | undefined;
    const field = body?.[CSRF_FIELD];
    return typeof field === 'string' ? field : undefined;
  },
});

export const csrfRefused = () =>
  new AppError(403, 'forbidden', 'Missing or invalid CSRF token: reload the page and try again');

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every state-changing request must carry the session's token. */
export const requireCsrf: RequestHandler = (req, _res, next) => {
  if (safeMethods.has(req.method) || csrf.isRequestValid(req)) return next();
  next(csrfRefused());
};

/** The session's token, created on first use. */
export function csrfToken(req: Request): string {
  return csrf.generateToken(req);
}
