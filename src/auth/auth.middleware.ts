import type { Request, RequestHandler } from 'express';
import { unauthorized } from '../shared/errors/app-error';
import { API_KEY_PATTERN } from '../shared/secrets';
import type { UserRecord } from '../users/user.model';
import { findUserByApiKey } from '../users/users.service';

export type AuthState = { user: UserRecord } | { failure: string };

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthState;
  }
}

/** Why a request's credentials are not acceptable, or the user they belong to. */
async function authenticate(header: string | undefined, now: Date): Promise<AuthState> {
  if (!header) return { failure: 'Missing API key: send Authorization: Bearer <API_KEY>' };
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!match?.[1]) return { failure: 'Malformed Authorization header: expected Bearer <API_KEY>' };
  if (!API_KEY_PATTERN.test(match[1])) return { failure: 'Malformed API key' };
  const user = await findUserByApiKey(match[1]);
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
export const resolveAuth: RequestHandler = async (req, _res, next) => {
  req.auth = await authenticate(req.headers.authorization, new Date());
  next();
};

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
