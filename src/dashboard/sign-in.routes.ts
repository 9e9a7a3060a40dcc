import type { Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { unauthorized } from '../shared/errors/app-error';
import { csrfToken } from './csrf';
import { signInPage } from './pages/sign-in.page';
import { passwordStamp, sessionCookie } from './session';
import { sessionUser } from './session-user';
import { isUsable, signInThrottle, verifyCredentials } from './sign-in';
import { awaitSecondFactor, secondFactorDue } from './sign-in-code';
import type { UserRecord } from '../users/user.model';

/** Only a path inside the dashboard: never another site (no open redirect). */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/app(\/[A-Za-z0-9/_-]*)?$/.test(value)
    ? value
    : '/app/links';
}

function regenerate(req: Request): Promise<void> {
  return new Promise((resolve, reject) =>
    req.session.regenerate((err) => (err ? reject(err) : resolve())),
  );
}

function save(req: Request): Promise<void> {
  return new Promise((resolve, reject) =>
    req.session.save((err) => (err ? reject(err) : resolve())),
  );
}

export function signIn(deps: AppDeps): RequestHandler[] {
  const handler: RequestHandler = async (req: Request, res: Response) => {
    const body = req.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const next = safeNext(body.next);
    const user = email && password ? await verifyCredentials(email, password) : null;
    const refusal = !user
      ? 'Wrong email or password.'
      : !isUsable(user)
        ? 'Your plan has ended: this account cannot sign in.'
        : undefined;
    if (!user || refusal) {
      deps.logger.info({ ip: req.ip }, 'dashboard sign-in refused');
      res.status(401).type('html').setHeader('Cache-Control', 'no-store');
      res.send(signInPage({ csrf: csrfToken(req), email, error: refusal, next }));
      return;
    }
    if (await secondFactorDue(deps, req, user)) {
      await regenerate(req);
      awaitSecondFactor(req, user, email, next);
      csrfToken(req);
      await save(req);
      res.redirect(303, '/app/signin/code');
      return;
    }
    await openSession(req, user);
    res.redirect(303, next);
  };
  return [...signInThrottle(deps), handler];
}

/** Signs `user` in on this request's session, under a new session id. */
export async function openSession(req: Request, user: UserRecord): Promise<void> {
  // A new session id at sign-in: a session id planted before cannot be ridden (fixation).
  await regenerate(req);
  req.session.userId = user.id;
  req.session.passwordStamp = passwordStamp(user.passwordHash);
  req.session.host = req.hostname.toLowerCase();
  req.session.signedInAt = Date.now();
  csrfToken(req);
  await save(req);
}

export function signOut(deps: AppDeps): RequestHandler {
  const cookie = sessionCookie(deps.config);
  return (req, res, next) => {
    req.session.destroy((err) => {
      if (err) return next(err);
      res.clearCookie(cookie.name, { path: cookie.path, secure: cookie.secure, httpOnly: true });
      res.redirect(303, '/app/signin');
    });
  };
}

/** Pages need a signed-in user: a GET is sent to the sign-in form and comes back afterwards. */
export const requireSignedIn: RequestHandler = (req, res, next) => {
  if (sessionUser(req)) return next();
  if (req.method === 'GET' || req.method === 'HEAD') {
    const target = `/app${req.path === '/' ? '' : req.path}`;
    return res.redirect(303, `/app/signin?next=${encodeURIComponent(target)}`);
  }
  next(unauthorized('Sign in first'));
};
