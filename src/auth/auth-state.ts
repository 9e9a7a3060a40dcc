import type { Request } from 'express';
import type { KeyGrant } from '../keys/callers';
import type { UserRecord } from '../users/user.model';

/** A dashboard session has no `key`: it may do whatever its user may. */
export type AuthState = { user: UserRecord; key?: KeyGrant } | { failure: string };

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthState;
  }
}

/** The key of the request, when it came with one (a dashboard session has none). */
export function currentKey(req: Request): KeyGrant | undefined {
  return req.auth && 'user' in req.auth ? req.auth.key : undefined;
}
