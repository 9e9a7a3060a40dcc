import type { Request } from 'express';
import type { AppDeps } from '../deps';
import { isRemembered, type DeviceBinding } from '../two-factor/remembered-device';
import type { TwoFactorRecord } from '../two-factor/two-factor.model';
import { enabledTwoFactor } from '../two-factor/two-factor.service';
import type { UserRecord } from '../users/user.model';
import { dashboardSecret, passwordStamp, sessionCookie, type SessionCookie } from './session';

declare module 'express-session' {
  interface SessionData {
    /** Password right, second factor due: the user, until `pendingAt` + PENDING_MS. */
    pendingUserId?: number;
    /** The password the first step was passed with: a change meanwhile ends the attempt. */
    pendingStamp?: string;
    /** The email typed at the first step: wrong codes count against it as wrong passwords do. */
    pendingEmail?: string;
    pendingAt?: number;
    pendingNext?: string;
    pendingFailures?: number;
  }
}

/** The code step must follow the password within this time. */
export const PENDING_MS = 5 * 60_000;
/** Wrong codes one password step allows before the password is asked again. */
export const MAX_CODE_FAILURES = 5;

/** The remembered-device cookie, named and scoped as the session cookie is. */
export function deviceCookie(config: { publicUrl: string; appUrl?: string }): SessionCookie {
  const cookie = sessionCookie(config);
  return { ...cookie, name: cookie.name.replace('.sid', '.device') };
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function deviceBinding(user: UserRecord, twoFactor: TwoFactorRecord): DeviceBinding {
  return {
    userId: user.id,
    deviceEpoch: twoFactor.deviceEpoch,
    passwordStamp: passwordStamp(user.passwordHash),
  };
}

/** Whether signing `user` in needs a code: two-factor sign-in is on and the device not remembered. */
export async function secondFactorDue(
  deps: AppDeps,
  req: Request,
  user: UserRecord,
): Promise<boolean> {
  const twoFactor = await enabledTwoFactor(user.id);
  if (!twoFactor) return false;
  const token = readCookie(req, deviceCookie(deps.config).name);
  return !isRemembered(dashboardSecret(deps), token, deviceBinding(user, twoFactor));
}

/** Notes on the (new) session that `user` passed the password and owes a code. */
export function awaitSecondFactor(
  req: Request,
  user: UserRecord,
  email: string,
  next: string,
): void {
  req.session.pendingUserId = user.id;
  req.session.pendingStamp = passwordStamp(user.passwordHash);
  req.session.pendingEmail = email.toLowerCase();
  req.session.pendingAt = Date.now();
  req.session.pendingNext = next;
  req.session.pendingFailures = 0;
}

export interface PendingSignIn {
  userId: number;
  stamp: string;
  next: string;
}

/** The sign-in waiting for its code on this session, unless it timed out. */
export function pendingSignIn(req: Request): PendingSignIn | undefined {
  const { pendingUserId, pendingStamp, pendingAt, pendingNext } = req.session ?? {};
  if (pendingUserId === undefined || !pendingStamp || pendingAt === undefined) return undefined;
  if (Date.now() - pendingAt > PENDING_MS) return undefined;
  return { userId: pendingUserId, stamp: pendingStamp, next: pendingNext ?? '/app/links' };
}

export function clearPending(req: Request): void {
  delete req.session.pendingUserId;
  delete req.session.pendingStamp;
  delete req.session.pendingEmail;
  delete req.session.pendingAt;
  delete req.session.pendingNext;
  delete req.session.pendingFailures;
}
