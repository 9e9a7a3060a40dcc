import type { Request } from 'express';
import type { KeyGrant } from '../keys/callers';
import type { Role } from '../team/membership.model';
import type { UserRecord } from '../users/user.model';

/**
 * `user` is the account the request acts in (whose records, plan and rate limit apply). A member
 * acting in someone else's account is `actor`, capped by `role`. A dashboard session has no
 * `key`: it may do whatever its user (or role) may.
 */
export type AuthState =
  { user: UserRecord; key?: KeyGrant; actor?: UserRecord; role?: Role } | { failure: string };

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthState;
  }
}

/** The key of the request, when it came with one (a dashboard session has none). */
export function currentKey(req: Request): KeyGrant | undefined {
  return req.auth && 'user' in req.auth ? req.auth.key : undefined;
}

/** Who made the request: the member acting in another account, else the account's user. */
export function actorOf(req: Request): UserRecord | undefined {
  return req.auth && 'user' in req.auth ? (req.auth.actor ?? req.auth.user) : undefined;
}
