import { Router, type Request, type Response } from 'express';
import { confirmCurrentPassword } from '../account/account.service';
import type { AppDeps } from '../deps';
import { toAppError } from '../shared/errors/error-handler';
import { formatOptionalDateTime } from '../shared/format/dates';
import {
  beginEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  forgetDevices,
  pendingEnrolment,
  regenerateRecoveryCodes,
  twoFactorStatus,
} from '../two-factor/two-factor.service';
import { csrfToken } from './csrf';
import { sendPage } from './pages/respond';
import { securityPage, type SecurityField, type SecurityView } from './pages/security.page';
import { failedAttemptsLimit } from './sign-in';
import { signedInUser } from './session-user';
import { endAllSessions } from './session';
import { signOut } from './sign-in.routes';

type Form = NonNullable<SecurityView['form']>;

const notices: Record<string, string> = {
  off: 'Two-factor sign-in is off.',
  devices: 'Every remembered device will ask for a code at its next sign-in.',
};

/**
 * The Security page: two-factor sign-in set up (QR code drawn by linkqr's renderer, then the
 * first code), recovery codes shown once, remembered devices forgotten, turned off with the
 * password and a code. The same services as /api/account/2fa.
 */
export function securityPages(deps: AppDeps): Router {
  const router = Router();
  const ctx = { secretKey: deps.config.webhookSecretKey };
  const throttle = failedAttemptsLimit(
    deps,
    'account',
    deps.config.dashboard.signInLimitPerAccount,
    (req) => signedInUser(req).email.toLowerCase(),
  );

  const render = async (req: Request, extra: Partial<SecurityView> = {}) => {
    const user = signedInUser(req);
    const status = await twoFactorStatus(user.id);
    return securityPage({
      csrf: csrfToken(req),
      enabled: status.enabled,
      enabledAt: formatOptionalDateTime(status.enabledAt),
      recoveryCodesLeft: status.recoveryCodesLeft,
      ...extra,
    });
  };

  /** A failure as the page shows it: beside the field it names, else above the section. */
  const refuse = async (req: Request, res: Response, form: Form, err: unknown) => {
    const appError = toAppError(err);
    if (appError.status >= 500) throw err;
    const field = appError.field as SecurityField | undefined;
    const known = field === 'current' || field === 'code';
    const message = appError.message.replace(/^(current|code): /, '');
    const enrolment =
      form === 'enable' ? await pendingEnrolment(signedInUser(req), ctx) : undefined;
    sendPage(
      res,
      appError.status,
      await render(req, {
        form,
        enrolment,
        errors: known ? { [field]: message } : undefined,
        problem: known ? undefined : appError.message,
      }),
    );
  };

  const body = (req: Request) => req.body as Record<string, string | undefined>;

  router.get('/security', async (req, res) => {
    const done = typeof req.query.done === 'string' ? notices[req.query.done] : undefined;
    sendPage(res, 200, await render(req, { notice: done }));
  });

  router.post('/security/2fa/setup', throttle, async (req, res) => {
    const user = signedInUser(req);
    try {
      await confirmCurrentPassword(user, body(req).current);
      const enrolment = await beginEnrolment(user, ctx);
      sendPage(res, 200, await render(req, { enrolment }));
    } catch (err) {
      await refuse(req, res, 'setup', err);
    }
  });

  router.post('/security/2fa/enable', throttle, async (req, res) => {
    try {
      const codes = await confirmEnrolment(signedInUser(req).id, body(req).code ?? '', ctx);
      sendPage(
        res,
        200,
        await render(req, { recoveryCodes: codes, notice: 'Two-factor sign-in is on.' }),
      );
    } catch (err) {
      await refuse(req, res, 'enable', err);
    }
  });

  router.post('/security/2fa/recovery-codes', throttle, async (req, res) => {
    try {
      const codes = await regenerateRecoveryCodes(signedInUser(req), body(req), ctx);
      sendPage(res, 200, await render(req, { recoveryCodes: codes }));
    } catch (err) {
      await refuse(req, res, 'codes', err);
    }
  });

  router.post('/security/2fa/disable', throttle, async (req, res) => {
    try {
      await disableTwoFactor(signedInUser(req), body(req), ctx);
    } catch (err) {
      return refuse(req, res, 'disable', err);
    }
    res.redirect(303, '/app/security?done=off');
  });

  router.post('/security/signout-everywhere', async (req, res, next) => {
    await endAllSessions(signedInUser(req).id);
    signOut(deps)(req, res, next);
  });

  router.post('/security/2fa/forget-devices', async (req, res) => {
    await forgetDevices(signedInUser(req).id);
    res.redirect(303, '/app/security?done=devices');
  });

  return router;
}
