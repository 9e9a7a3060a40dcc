import { Router, type Request } from 'express';
import { actorOf } from '../auth/auth-state';
import { currentUser } from '../auth/auth.middleware';
import { failedAttemptsLimit } from '../dashboard/sign-in';
import type { AppDeps } from '../deps';
import { endpoint } from '../shared/http/endpoint';
import { dataResponse, messageResponse, sendData, sendMessage } from '../shared/http/responses';
import type { UserRecord } from '../users/user.model';
import { findUserById } from '../users/users.service';
import {
  enrolmentJson,
  presentEnrolment,
  presentStatus,
  recoveryCodesJson,
  statusJson,
} from './two-factor.presenter';
import {
  enableSchema,
  passwordAndCodeSchema,
  setupSchema,
  type CodeConfirmation,
  type PasswordAndCode,
  type PasswordConfirmation,
} from './two-factor.schemas';
import {
  beginEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  forgetDevices,
  regenerateRecoveryCodes,
  twoFactorStatus,
} from './two-factor.service';
import { confirmCurrentPassword } from '../account/account.service';

const tag = 'Account';
const about =
  'Two-factor sign-in guards the dashboard (a TOTP app such as any authenticator); API keys are not affected.';

const api = {
  status: endpoint({
    tag,
    scope: 'account:read',
    summary: 'Whether two-factor sign-in is on, and how many recovery codes are left',
    responses: { 200: dataResponse({ data: statusJson }, 'The two-factor status') },
  }),
  setup: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Start setting up two-factor sign-in: a new TOTP secret and its QR code',
    description: `${about} Needs \`current\`, your password. Nothing changes until \`/api/account/2fa/enable\` confirms a first code; starting again replaces the secret. 409 while it is on; 503 when WEBHOOK_SECRET_KEY (which encrypts the secret) is not set.`,
    body: setupSchema,
    responses: { 200: dataResponse({ data: enrolmentJson }, 'The secret, shown only here') },
    errors: [409],
  }),
  enable: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Turn two-factor sign-in on with a first code; answers ten recovery codes, once',
    description:
      'A wrong code answers 422 (`field`: `code`); wrong codes and passwords count against the sign-in throttle (429).',
    body: enableSchema,
    responses: {
      200: dataResponse({ data: { recoveryCodes: recoveryCodesJson } }, 'The recovery codes'),
    },
    errors: [409],
  }),
  disable: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Turn two-factor sign-in off: needs your password and a current code',
    description:
      '`current` (your password) and `code` (from your app, or a recovery code, which it uses up). Remembered devices are forgotten.',
    body: passwordAndCodeSchema,
    responses: { 200: messageResponse('Turned off') },
    errors: [409],
  }),
  recoveryCodes: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Ten new recovery codes (the old ones stop working): needs your password and a code',
    body: passwordAndCodeSchema,
    responses: {
      200: dataResponse({ data: { recoveryCodes: recoveryCodesJson } }, 'The new recovery codes'),
    },
    errors: [409],
  }),
  forgetDevices: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Forget every device remembered at sign-in: each asks for a code again',
    responses: { 200: messageResponse('Forgotten') },
    // It takes no body, but a malformed one is still refused as on every write route.
    errors: [400],
  }),
};

/**
 * Two-factor sign-in is the caller's own, never the account they act in: a member acting in an
 * owner's account manages their own (and cannot write the owner's account anyway).
 */
async function caller(req: Request): Promise<UserRecord> {
  const cached = actorOf(req) ?? currentUser(req);
  // Afresh: the key cache's copy may be seconds old, and the password is checked against it.
  return (await findUserById(cached.id)) ?? cached;
}

export function twoFactorRouter(deps: AppDeps): Router {
  const router = Router();
  const ctx = { secretKey: deps.config.webhookSecretKey };
  // Wrong codes and passwords here count against the same per-account counter as the dashboard's
  // sign-in (keyed by the email), so guessing through the API gains no extra attempts.
  const throttle = failedAttemptsLimit(
    deps,
    'account',
    deps.config.dashboard.signInLimitPerAccount,
    (req) => (actorOf(req)?.email ?? '').toLowerCase(),
  );

  router.get('/account/2fa', api.status, async (req, res) => {
    const user = await caller(req);
    sendData(res, { data: presentStatus(await twoFactorStatus(user.id)) });
  });

  router.post('/account/2fa/setup', api.setup, throttle, async (req, res) => {
    const user = await caller(req);
    await confirmCurrentPassword(user, (req.body as PasswordConfirmation).current);
    sendData(res, { data: presentEnrolment(await beginEnrolment(user, ctx)) });
  });

  router.post('/account/2fa/enable', api.enable, throttle, async (req, res) => {
    const user = await caller(req);
    const recoveryCodes = await confirmEnrolment(user.id, (req.body as CodeConfirmation).code, ctx);
    sendData(res, { data: { recoveryCodes } });
  });

  router.post('/account/2fa/disable', api.disable, throttle, async (req, res) => {
    const user = await caller(req);
    await disableTwoFactor(user, req.body as PasswordAndCode, ctx);
    sendMessage(res, 'Two-factor sign-in is off.');
  });

  router.post('/account/2fa/recovery-codes', api.recoveryCodes, throttle, async (req, res) => {
    const user = await caller(req);
    const recoveryCodes = await regenerateRecoveryCodes(user, req.body as PasswordAndCode, ctx);
    sendData(res, { data: { recoveryCodes } });
  });

  router.post('/account/2fa/forget-devices', api.forgetDevices, async (req, res) => {
    await forgetDevices((await caller(req)).id);
    sendMessage(res, 'Every remembered device asks for a code at its next sign-in.');
  });

  return router;
}
