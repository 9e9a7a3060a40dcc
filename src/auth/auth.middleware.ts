import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { forbidden, unauthorized } from '../shared/errors/app-error';
import { API_KEY_PATTERN, hashApiKey } from '../shared/secrets';
import { apiKeyCacheFor, type ApiKeyCache } from '../users/api-key-cache';
import type { UserRecord } from '../users/user.model';
import { findUserByApiKeyHash } from '../users/users.service';

/**
 * `session`: the caller is a signed-in dashboard session rather than an API key (a key is the
 * account's whole credential; a session is not, so some changes ask it for the password again).
 */
export type AuthState = { user: UserRecord; session?: boolean } | { failure: string };

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthState;
  }
}

/** `Bearer` is the spec's scheme; GemPixel's own wrapper and many of its clients send `Token`. */
const AUTHORIZATION = /^(?:Bearer|Token) ([^\s]+)$/i;

/** Why a request's credentials are not acceptable, or the user they belong to. */
async function authenticate(
  header: string | undefined,
  now: Date,
  users: ApiKeyCache,
): Promise<AuthState> {
  if (!header) return { failure: 'Missing API key: send Authorization: Bearer <API_KEY>' };
  const match = AUTHORIZATION.exec(header.trim());
  if (!match?.[1]) {
    return {
      failure: 'Malformed Authorization header: expected Bearer <API_KEY> or Token <API_KEY>',
    };
  }
  if (!API_KEY_PATTERN.test(match[1])) return { failure: 'Malformed API key' };
  const hash = hashApiKey(match[1]);
  const user = await users.get(hash, () => findUserByApiKeyHash(hash));
  if (!user) return { failure: 'Invalid API key' };
  if (user.expires && user.expires.getTime() <= now.getTime()) {
    return { failure: 'API key expired: the account plan ended' };
  }
  return { user };
}

/**
 * Resolves the caller without rejecting yet, so the rate limiter can count failed attempts per IP
 * and every 401 still carries the rate-limit headers.
 */
export function resolveAuth(deps: AppDeps): RequestHandler {
  const users = apiKeyCacheFor(deps);
  return async (req, _res, next) => {
    req.auth = await authenticate(req.headers.authorization, new Date(), users);
    next();
  };
}

export const requireAuth: RequestHandler = (req, _res, next) => {
  if (!req.auth || 'failure' in req.auth)
    return next(unauthorized(req.auth?.failure ?? 'Unauthorized'));
  next();
};

/** The authenticated user of a request that passed `requireAuth`. */
export function currentUser(req: Request): UserRecord {
  if (!req.auth || !('user' in req.auth)) throw unauthorized('Unauthorized');
  return req.auth.user;
}

/** Whether the request is a dashboard session's (not an API key's). */
export function viaSession(req: Request): boolean {
  return Boolean(req.auth && 'user' in req.auth && req.auth.session);
}

/** Routes of GemPixel's admin API: any valid key gets past auth, only an administrator's further. */
export const requireAdmin: RequestHandler = (req, _res, next) => {
  if (!currentUser(req).admin) {
    return next(forbidden("Forbidden: this endpoint needs an administrator's API key"));
  }
  next();
};
