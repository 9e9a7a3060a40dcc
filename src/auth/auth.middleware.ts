import type { Request, RequestHandler } from 'express';
import { unauthorized } from '../shared/errors/app-error';
import type { AppDeps } from '../deps';
import { API_KEY_PATTERN, hashApiKey } from '../shared/secrets';
import { apiKeyCacheFor, type ApiKeyCache } from '../users/api-key-cache';
import type { UserRecord } from '../users/user.model';
import { findUserByApiKeyHash } from '../users/users.service';

export type AuthState = { user: UserRecord } | { failure: string };

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthState;
  }
}

/** Why a request's credentials are not acceptable, or the user they belong to. */
async function authenticate(
  header: string | undefined,
  now: Date,
  users: ApiKeyCache,
): Promise<AuthState> {
  if (!header) return { failure: 'Missing API key: send Authorization: Bearer <API_KEY>' };
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!match?.[1]) return { failure: 'Malformed Authorization header: expected Bearer <API_KEY>' };
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
