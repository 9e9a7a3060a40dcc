import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { clientKey } from '../shared/http/client-key';
import { RedisStore } from 'rate-limit-redis';
import type { AppDeps } from '../deps';
import { tooManyRequests } from '../shared/errors/app-error';
import { scriptSafeSendCommand } from '../shared/infra/redis-connections';
import { hashPassword, verifyPassword } from '../shared/secrets';
import type { UserRecord } from '../users/user.model';
import { findUserByEmail } from '../users/users.service';

/** Compared against when the email is unknown, so both failures take the same time. */
let decoy: Promise<string> | undefined;

/** The user these credentials belong to, or null; never says which half was wrong. */
export async function verifyCredentials(
  email: string,
  password: string,
): Promise<UserRecord | null> {
  const user = await findUserByEmail(email);
  if (!user?.passwordHash) {
    decoy ??= hashPassword('decoy password never matches');
    await verifyPassword(password, await decoy);
    return null;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}

/** Signed-in users whose plan ended lose the dashboard exactly as they lose their API key. */
export function isUsable(user: UserRecord, now = new Date()): boolean {
  return !user.expires || user.expires.getTime() > now.getTime();
}

/**
 * Every request to the sign-in page (shown or posted), counted per client address: the page costs
 * no storage any more, but it still costs a password hash when posted.
 */
export function signInPageLimit(deps: AppDeps): RequestHandler {
  const { signInPageLimitPerIp, signInWindowMs } = deps.config.dashboard;
  return rateLimit({
    windowMs: signInWindowMs,
    limit: signInPageLimitPerIp,
    keyGenerator: clientKey,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: false,
    store: new RedisStore({
      prefix: deps.keys.key('dashboard', 'signin', 'page', ''),
      sendCommand: scriptSafeSendCommand(deps.redis),
    }),
    handler: (_req, _res, next) => {
      const minutes = Math.ceil(signInWindowMs / 60_000);
      next(
        tooManyRequests(
          `Too many requests for the sign-in page: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
          Math.ceil(signInWindowMs / 1000),
        ),
      );
    },
  });
}

/**
 * A limiter of failed attempts (answers of 400 and above) under the sign-in's counters: the same
 * `scope` and key share one count whichever form or route made the attempt, so a wrong code counts
 * as a wrong password does.
 */
export function failedAttemptsLimit(
  deps: AppDeps,
  scope: 'ip' | 'account',
  limit: number,
  key: (req: Request) => string,
): RequestHandler {
  const { signInWindowMs } = deps.config.dashboard;
  return rateLimit({
    windowMs: signInWindowMs,
    limit,
    skipSuccessfulRequests: true,
    keyGenerator: key,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: false,
    store: new RedisStore({
      prefix: deps.keys.key('dashboard', 'signin', scope, ''),
      sendCommand: scriptSafeSendCommand(deps.redis),
    }),
    handler: (_req, _res, next) => {
      const minutes = Math.ceil(signInWindowMs / 60_000);
      next(
        tooManyRequests(
          `Too many failed sign-ins: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
          Math.ceil(signInWindowMs / 1000),
        ),
      );
    },
  });
}

/** The account a sign-in attempt counts against: the email typed, else the one half signed in. */
function accountOf(req: Request): string {
  const email = (req.body as Record<string, unknown> | undefined)?.email;
  if (typeof email === 'string') return email.trim().toLowerCase();
  return req.session?.pendingEmail ?? '';
}

/**
 * Failed sign-ins (a wrong password, a wrong second-factor code) are counted per client address
 * and per account (in Redis, shared by every process); past either cap the form answers 429 until
 * the window ends, right password or not.
 */
export function signInThrottle(deps: AppDeps): RequestHandler[] {
  const { signInLimitPerIp, signInLimitPerAccount } = deps.config.dashboard;
  return [
    failedAttemptsLimit(deps, 'ip', signInLimitPerIp, clientKey),
    failedAttemptsLimit(deps, 'account', signInLimitPerAccount, accountOf),
  ];
}
