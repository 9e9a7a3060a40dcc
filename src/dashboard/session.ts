import { createHash, randomBytes } from 'node:crypto';
import RedisStore from 'connect-redis';
import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import type { AppDeps } from '../deps';
import { User } from '../users/user.model';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in user; absent on an anonymous session (which only holds a CSRF token). */
    userId?: number;
    /** Fingerprint of the password the session was opened with (see `passwordStamp`). */
    passwordStamp?: string;
    /** The host the session was opened on: it is worth nothing on any other (issue 29, M2). */
    host?: string;
    /** When the user signed in (ms): a session ends SESSION_MAX_AGE_SECONDS later, used or not. */
    signedInAt?: number;
  }
}

export interface SessionCookie {
  name: string;
  path: string;
  secure: boolean;
}

/**
 * Over https the cookie is `__Host-` prefixed (Secure, Path=/, no Domain: the browser keeps it to
 * the one host that set it, and no sibling subdomain can plant or overwrite it); over plain http
 * (a LAN address, a newcomer's localhost) browsers refuse that prefix, so it stays on /app.
 */
export function sessionCookie(config: { publicUrl: string; appUrl?: string }): SessionCookie {
  const secure = (config.appUrl ?? config.publicUrl).startsWith('https:');
  return secure
    ? { name: '__Host-linkqr.sid', path: '/', secure }
    : { name: 'linkqr.sid', path: '/app', secure };
}

/**
 * A short digest of the stored password hash: when the password changes, every session opened
 * with the old one stops matching and ends (the hash itself never goes into the session).
 */
export function passwordStamp(passwordHash: string | null | undefined): string {
  return createHash('sha256')
    .update(passwordHash ?? '')
    .digest('base64url')
    .slice(0, 16);
}

/**
 * Server-side sessions in Redis under the dashboard's own key prefix. The cookie is HttpOnly,
 * SameSite=Lax, and `__Host-`/Secure when the dashboard's URL is https (behind a TLS proxy, set
 * TRUST_PROXY so Express sees the request as secure).
 */
/** The dashboard's signing secret: main.ts loads the stored one; an app built without (tests) makes one. */
export function dashboardSecret(deps: AppDeps): string {
  const configured = deps.sessionSecret ?? deps.config.dashboard.sessionSecret;
  if (configured) return configured;
  // One per app: the session, the CSRF tokens and remembered devices must agree on it.
  let made = madeSecrets.get(deps);
  if (!made) {
    made = randomBytes(32).toString('base64url');
    madeSecrets.set(deps, made);
  }
  return made;
}

const madeSecrets = new WeakMap<AppDeps, string>();

/** The anonymous visitor's CSRF cookie, named and scoped as the session cookie is. */
export function csrfCookie(config: { publicUrl: string; appUrl?: string }): SessionCookie {
  const cookie = sessionCookie(config);
  return { ...cookie, name: cookie.name.replace('.sid', '.csrf') };
}

export function sessionMiddleware(deps: AppDeps, secret: string): RequestHandler {
  const { config } = deps;
  const { dashboard } = config;
  const cookie = sessionCookie(config);
  return session({
    name: cookie.name,
    secret,
    store: new RedisStore({
      client: deps.redis,
      prefix: deps.keys.key('dashboard', 'sess', ''),
      ttl: dashboard.sessionTtlSeconds,
    }),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    unset: 'destroy',
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: cookie.secure,
      path: cookie.path,
      maxAge: dashboard.sessionTtlSeconds * 1000,
    },
  });
}

/**
 * After the password changed through this session: the session goes on under the new password,
 * while every other session, still stamped with the old one, ends at its next request.
 */
export async function keepThisSession(req: Request, userId: number): Promise<void> {
  if (!req.session) return;
  const updated = await User.findOne({ id: userId }, { passwordHash: 1 }).lean();
  req.session.passwordStamp = passwordStamp(updated?.passwordHash);
}

/**
 * "Sign out everywhere": every session of the user opened until now ends at its next request
 * (each request reloads the user, so this costs no lookup of its own).
 */
export async function endAllSessions(userId: number): Promise<void> {
  await User.updateOne({ id: userId }, { $set: { sessionsEndedAt: new Date() } });
}
