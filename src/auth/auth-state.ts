import type { Request } from 'express';
import type { KeyGrant } from '../keys/callers';
import type { Role } from '../team/membership.model';
import type { UserRecord } from '../users/user.model';

/**
 * `user` is the account the request acts in (whose records, plan and rate limit apply). A member
 * acting in someone else's account is `actor`, capped by `role`. A dashboard session has no
 * `key`: it may do whatever its user (or role) may. `session`: a signed-in dashboard session rather
 * than an API key (a key is the account's whole credential; a session is not, so some changes ask
 * it for the password again).
 */
export type AuthState =
  | { user: UserRecord; key?: KeyGrant; session?: boolean; actor?: UserRecord; role?: Role }
  | { failure: string };

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
