import { Router, type Request, type RequestHandler, type Response } from 'express';
import { appendAuditEvent } from '../audit/audit-append';
import type { AppDeps } from '../deps';
import { rememberDevice, REMEMBER_DEVICE_DAYS } from '../two-factor/remembered-device';
import { checkSecondFactor, enabledTwoFactor } from '../two-factor/two-factor.service';
import { findUserById } from '../users/users.service';
import { csrfToken } from './csrf';
import { sendPage } from './pages/respond';
import { signInCodePage } from './pages/sign-in-code.page';
import { signInPage } from './pages/sign-in.page';
import { dashboardSecret, passwordStamp } from './session';
import { signInPageLimit, signInThrottle, isUsable } from './sign-in';
import {
  clearPending,
  deviceBinding,
  deviceCookie,
  MAX_CODE_FAILURES,
  pendingSignIn,
} from './sign-in-code';
import { openSession } from './sign-in.routes';

const DAY_MS = 86_400_000;

/** The sign-in form again, when the password step must be done again. */
function startOver(req: Request, res: Response, message: string): void {
  clearPending(req);
  res.setHeader('Cache-Control', 'no-store');
  sendPage(res, 401, signInPage({ csrf: csrfToken(req), error: message }));
}

/**
 * The second step of signing in with two-factor sign-in on: a TOTP code or a recovery code, with
 * failures counted by the sign-in's own throttle (per address and per account), and at most
 * MAX_CODE_FAILURES per password step.
 */
export function signInCodePages(deps: AppDeps): Router {
  const router = Router();
  const pageLimit = signInPageLimit(deps);
  const secret = dashboardSecret(deps);
  const device = deviceCookie(deps.config);
  const ctx = { secretKey: deps.config.webhookSecretKey };

  router.get('/signin/code', pageLimit, (req, res) => {
    if (!pendingSignIn(req)) return res.redirect(303, '/app/signin');
    res.setHeader('Cache-Control', 'no-store');
    sendPage(res, 200, signInCodePage({ csrf: csrfToken(req) }));
  });

  const verify: RequestHandler = async (req, res) => {
    const pending = pendingSignIn(req);
    if (!pending) return startOver(req, res, 'Your sign-in timed out: enter your password again.');
    const user = await findUserById(pending.userId);
    const twoFactor = user && (await enabledTwoFactor(user.id));
    if (
      !user ||
      !twoFactor ||
      !isUsable(user) ||
      passwordStamp(user.passwordHash) !== pending.stamp
    ) {
      return startOver(req, res, 'Your sign-in is no longer valid: enter your password again.');
    }
    const body = req.body as Record<string, unknown>;
    const code = typeof body.code === 'string' ? body.code.trim().slice(0, 64) : '';
    const factor = code ? await checkSecondFactor(user.id, code, ctx) : undefined;
    if (!factor) {
      deps.logger.info({ ip: req.ip }, 'dashboard second factor refused');
      const failures = (req.session.pendingFailures ?? 0) + 1;
      if (failures >= MAX_CODE_FAILURES) {
        return startOver(req, res, 'Too many wrong codes: enter your password again.');
      }
      req.session.pendingFailures = failures;
      res.setHeader('Cache-Control', 'no-store');
      return sendPage(
        res,
        401,
        signInCodePage({
          csrf: csrfToken(req),
          error: 'That code is wrong or was used already. Try the next code from your app.',
        }),
      );
    }
    await openSession(req, user);
    if (body.remember === 'on') {
      res.cookie(device.name, rememberDevice(secret, deviceBinding(user, twoFactor)), {
        httpOnly: true,
        sameSite: 'lax',
        secure: device.secure,
        path: device.path,
        maxAge: REMEMBER_DEVICE_DAYS * DAY_MS,
      });
    }
    if (factor === 'recovery') {
      await appendAuditEvent(deps, req, {
        userId: user.id,
        route: '/app/signin/code',
        type: 'two-factor',
        changes: { recoveryCode: 'used' },
      });
    }
    res.redirect(303, pending.next);
  };
  router.post('/signin/code', pageLimit, ...signInThrottle(deps), verify);
  return router;
}
