import type { Request, RequestHandler } from 'express';
import { unauthorized } from '../shared/errors/app-error';
import type { UserRecord } from '../users/user.model';
import { findUserById } from '../users/users.service';
import { passwordStamp } from './session';
import { isUsable } from './sign-in';

/**
 * Loads the signed-in user afresh on every request (a changed plan, an ended plan, a deleted
 * account or a changed password applies at once) and hands it to the API's handlers exactly as a valid API key would.
 */
export function loadSessionUser(maxAgeSeconds: number): RequestHandler {
  return async (req, _res, next) => {
    const userId = req.session?.userId;
    if (userId === undefined) return next();
    // An absolute lifetime: a stolen session cannot be kept alive by using it (issue 29, I).
    const openedAt = req.session.signedInAt ?? 0;
    if (Date.now() - openedAt > maxAgeSeconds * 1000) {
      delete req.session.userId;
      delete req.session.passwordStamp;
      delete req.session.host;
      delete req.session.signedInAt;
      return next();
    }
    // A session id carried to another host (one signed in on a branded domain before M2, say) is
    // anonymous there; it stays signed in where it was opened.
    if (req.session.host !== req.hostname.toLowerCase()) return next();
    const user = await findUserById(userId);
    if (
      !user ||
      !isUsable(user) ||
      req.session.passwordStamp !== passwordStamp(user.passwordHash) ||
      (user.sessionsEndedAt && openedAt <= user.sessionsEndedAt.getTime())
    ) {
      delete req.session.userId;
      delete req.session.passwordStamp;
      delete req.session.host;
      return next();
    }
    req.auth = { user, session: true };
    next();
  };
}

export function sessionUser(req: Request): UserRecord | undefined {
  return req.auth && 'user' in req.auth ? req.auth.user : undefined;
}

/** The user of a request that passed a signed-in check. */
export function signedInUser(req: Request): UserRecord {
  const user = sessionUser(req);
  if (!user) throw unauthorized('Sign in first');
  return user;
}

/** The dashboard's JSON API answers 401 without a signed-in session. */
export const requireSessionUser: RequestHandler = (req, _res, next) => {
  if (!sessionUser(req)) return next(unauthorized('Sign in at /app/signin first'));
  next();
};
