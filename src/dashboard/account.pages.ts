import { Router, type Request, type Response } from 'express';
import { accountUpdateSchema } from '../account/account.schemas';
import { confirmCurrentPassword, updateAccount } from '../account/account.service';
import type { AppDeps } from '../deps';
import { toAppError } from '../shared/errors/error-handler';
import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import { apiKeyCacheFor } from '../users/api-key-cache';
import type { UserRecord } from '../users/user.model';
import { rotateApiKey } from '../users/users.service';
import { csrfToken } from './csrf';
import { planOf } from '../plans/plans.service';
import { accountPage, type AccountView, type PlanView } from './pages/account.page';
import { sendPage } from './pages/respond';
import { keepThisSession } from './session';
import { signedInUser } from './session-user';

/** The user's plan with its limits (from PLANS; an absent limit is unlimited). */
function planView(deps: AppDeps, user: UserRecord): PlanView {
  const { config } = deps;
  const plan = planOf(config.plans, user);
  return {
    name: user.status,
    rateLimit: config.planRateLimits[user.status] ?? config.defaultRateLimit,
    windowSeconds: Math.round(config.rateLimitWindowMs / 1000),
    expires: formatOptionalDateTime(user.expires),
    limits: {
      links: plan?.maxLinks,
      qrCodes: plan?.maxQrCodes,
      domains: plan?.maxDomains,
    },
  };
}

async function currentPasswordIsRight(user: UserRecord, current: string | undefined) {
  try {
    await confirmCurrentPassword(user, current);
    return true;
  } catch {
    return false;
  }
}

/** The account page: plan, key rotation (shown once), email and password changes. */
export function accountPages(deps: AppDeps): Router {
  const apiKeys = apiKeyCacheFor(deps);
  const router = Router();

  const account = (req: Request, extra: Partial<AccountView> = {}): string => {
    const u = signedInUser(req);
    return accountPage({
      csrf: csrfToken(req),
      email: u.email,
      username: u.username,
      registered: formatDateTime(u.registered),
      plan: planView(deps, u),
      ...extra,
    });
  };
  const notices: Record<string, string> = {
    email: 'Your email has been changed.',
    password: 'Your password has been changed.',
  };
  router.get('/account', (req, res) => {
    const done = typeof req.query.done === 'string' ? notices[req.query.done] : undefined;
    sendPage(res, 200, account(req, { notice: done }));
  });

  /** Changing the email or the password asks for the current password: a stolen session is not enough. */
  const changeAccount = (field: 'email' | 'password') => async (req: Request, res: Response) => {
    const u = signedInUser(req);
    const body = req.body as Record<string, string | undefined>;
    const currentKey = field === 'email' ? 'current' : 'passwordCurrent';
    if (!(await currentPasswordIsRight(u, body.current))) {
      return sendPage(
        res,
        422,
        account(req, { errors: { [currentKey]: 'The current password is wrong' } }),
      );
    }
    const { error, value } = accountUpdateSchema.validate({ [field]: body[field] ?? '' });
    if (error) {
      const message = error.details[0]?.message.replace(/"/g, '') ?? error.message;
      return sendPage(res, 422, account(req, { errors: { [field]: message } }));
    }
    try {
      await updateAccount(u.id, value, apiKeys);
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) throw err;
      return sendPage(
        res,
        appError.status,
        account(req, { errors: { [field]: appError.message } }),
      );
    }
    // This session goes on; the user's other sessions end with the old password.
    if (field === 'password') await keepThisSession(req, u.id);
    res.redirect(303, `/app/account?done=${field}`);
  };
  router.post('/account/email', changeAccount('email'));
  router.post('/account/password', changeAccount('password'));
  router.post('/account/key', async (req, res) => {
    const u = signedInUser(req);
    const current = (req.body as Record<string, string | undefined>).current;
    if (!(await currentPasswordIsRight(u, current))) {
      return sendPage(
        res,
        422,
        account(req, { errors: { keyCurrent: 'The current password is wrong' } }),
      );
    }
    const { apiKey: newKey } = await rotateApiKey(u.id, apiKeys);
    sendPage(res, 200, account(req, { newKey }));
  });

  return router;
}
