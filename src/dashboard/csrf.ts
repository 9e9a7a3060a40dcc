import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { csrfSync } from 'csrf-sync';
import { AppError } from '../shared/errors/app-error';

export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

function sentToken(req: Request): string | undefined {
  const header = req.headers[CSRF_HEADER];
  if (typeof header === 'string') return header;
  const body = req.body as Record<string, unknown> | undefined;
  const field = body?.[CSRF_FIELD];
  return typeof field === 'string' ? field : undefined;
}

/** Synchroniser tokens kept in a signed-in session: sent back in a header (fetch) or a form field. */
const csrf = csrfSync({ getTokenFromRequest: sentToken });

export const csrfRefused = () =>
  new AppError(403, 'forbidden', 'Missing or invalid CSRF token: reload the page and try again');

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A session someone signed in to; anonymous visitors have none (no Redis entry per visitor). */
const signedInSession = (req: Request) => req.session?.userId !== undefined;

declare module 'express-serve-static-core' {
  interface Request {
    /** The stateless CSRF pair of an anonymous visitor (see `statelessCsrf`). */
    anonymousCsrf?: { issue(): string; valid(token: string | undefined): boolean };
  }
}

export interface CsrfCookie {
  name: string;
  path: string;
  secure: boolean;
}

const COOKIE_VALUE = /^[A-Za-z0-9_-]{24}$/;

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return COOKIE_VALUE.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * CSRF for anonymous forms (sign-in, sign-out, error pages) without a server-side session: a
 * random nonce in an HttpOnly cookie and, in the form, `<issued>.<HMAC(secret, nonce, issued)>`
 * (the signed double-submit pattern). Nothing is stored, so anonymous visitors cannot fill
 * Redis; a token is good for `ttlMs` and only with its own cookie (no login CSRF).
 */
export function statelessCsrf(secret: string, cookie: CsrfCookie, ttlMs: number): RequestHandler {
  const mac = (nonce: string, issued: string) =>
    createHmac('sha256', secret).update(`signin-csrf.${nonce}.${issued}`).digest('base64url');
  const options = {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: cookie.secure,
    path: cookie.path,
    maxAge: ttlMs,
  };
  function issue(req: Request, res: Response): string {
    let nonce = readCookie(req, cookie.name);
    if (!nonce) {
      nonce = randomBytes(18).toString('base64url');
      res.cookie(cookie.name, nonce, options);
    }
    const issued = String(Date.now());
    return `${issued}.${mac(nonce, issued)}`;
  }
  function valid(req: Request, token: string | undefined): boolean {
    const nonce = readCookie(req, cookie.name);
    const [issued, sent, extra] = (token ?? '').split('.');
    if (!nonce || !issued || !sent || extra !== undefined || !/^\d{1,15}$/.test(issued)) {
      return false;
    }
    const age = Date.now() - Number(issued);
    if (age < 0 || age > ttlMs) return false;
    const expected = Buffer.from(mac(nonce, issued));
    const given = Buffer.from(sent);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
  return (req, res, next) => {
    req.anonymousCsrf = { issue: () => issue(req, res), valid: (token) => valid(req, token) };
    next();
  };
}

/** Equal strings, compared in constant time (csrf-sync's own check uses `===`). */
function sameToken(sent: string | undefined, stored: unknown): boolean {
  if (typeof sent !== 'string' || typeof stored !== 'string') return false;
  const [a, b] = [Buffer.from(sent), Buffer.from(stored)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Every state-changing request must carry its token: the session's, or the stateless one. */
export const requireCsrf: RequestHandler = (req, _res, next) => {
  if (safeMethods.has(req.method)) return next();
  const ok = signedInSession(req)
    ? sameToken(sentToken(req), (req.session as { csrfToken?: unknown }).csrfToken)
    : (req.anonymousCsrf?.valid(sentToken(req)) ?? false);
  next(ok ? undefined : csrfRefused());
};

/** The token for the page being rendered: the session's (created on first use) or a stateless one. */
export function csrfToken(req: Request): string {
  if (signedInSession(req)) return csrf.generateToken(req);
  if (!req.anonymousCsrf) throw new Error('statelessCsrf is not mounted');
  return req.anonymousCsrf.issue();
}
