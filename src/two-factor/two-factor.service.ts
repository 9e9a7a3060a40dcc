import { randomBytes } from 'node:crypto';
import { confirmCurrentPassword } from '../account/account.service';
import { conflict, serviceUnavailable, validation } from '../shared/errors/app-error';
import type { UserRecord } from '../users/user.model';
import { decryptSecret, encryptSecret, keyIdOf } from '../webhooks/webhook-secret';
import {
  hashRecoveryCode,
  newRecoveryCode,
  normaliseRecoveryCode,
  RECOVERY_CODE_COUNT,
} from './recovery-codes';
import { enrolmentQrSvg, matchTotp, newTotpSecret, otpauthUri } from './totp';
import { RecoveryCode, TwoFactor, type TwoFactorRecord } from './two-factor.model';

export interface TwoFactorContext {
  /** WEBHOOK_SECRET_KEY: it encrypts TOTP secrets at rest as it does webhook secrets. */
  secretKey: Buffer | undefined;
}

export interface Enrolment {
  secret: string;
  uri: string;
  /** The QR code of `uri`, an SVG drawn by linkqr's renderer. */
  qrSvg: string;
}

export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: Date | null;
  recoveryCodesLeft: number;
  /** A set-up started and not yet confirmed with a code. */
  pending: boolean;
}

/** How a second factor was proven. */
export type SecondFactor = 'totp' | 'recovery';

const newEpoch = () => randomBytes(12).toString('base64url');

function requireKey(ctx: TwoFactorContext): Buffer {
  if (!ctx.secretKey) {
    throw serviceUnavailable('Two-factor sign-in is not configured: set WEBHOOK_SECRET_KEY');
  }
  return ctx.secretKey;
}

function decrypt(stored: string, ctx: TwoFactorContext): string | undefined {
  if (!ctx.secretKey) return undefined;
  try {
    return decryptSecret(stored, ctx.secretKey);
  } catch {
    // Encrypted under a key this service no longer has: recovery codes still work.
    return undefined;
  }
}

const wrongCode = () =>
  validation('code: the code is wrong or was used already; use a new one', 'code');

/** The user's confirmed second factor, or null when two-factor sign-in is off. */
export async function enabledTwoFactor(userId: number): Promise<TwoFactorRecord | null> {
  const doc = await TwoFactor.findOne({ userId }).lean();
  return doc?.secret ? doc : null;
}

export async function twoFactorStatus(userId: number): Promise<TwoFactorStatus> {
  const [doc, left] = await Promise.all([
    TwoFactor.findOne({ userId }).lean(),
    RecoveryCode.countDocuments({ userId, usedAt: null }),
  ]);
  const enabled = Boolean(doc?.secret);
  return {
    enabled,
    enabledAt: enabled ? (doc?.enabledAt ?? null) : null,
    recoveryCodesLeft: enabled ? left : 0,
    pending: Boolean(doc?.pendingSecret) && !enabled,
  };
}

function enrolmentOf(user: Pick<UserRecord, 'email'>, secret: string): Enrolment {
  const uri = otpauthUri(secret, user.email);
  return { secret, uri, qrSvg: enrolmentQrSvg(uri) };
}

/**
 * Starts (or restarts) the set-up: a new secret, stored encrypted as pending until a first code
 * confirms that the user's app has it. Refused while two-factor sign-in is on.
 */
export async function beginEnrolment(
  user: Pick<UserRecord, 'id' | 'email'>,
  ctx: TwoFactorContext,
): Promise<Enrolment> {
  const key = requireKey(ctx);
  const secret = newTotpSecret();
  const updated = await TwoFactor.findOneAndUpdate(
    { userId: user.id, secret: null },
    {
      $set: { pendingSecret: encryptSecret(secret, key), secretKeyId: keyIdOf(key) },
      $setOnInsert: { userId: user.id, lastStep: 0, deviceEpoch: newEpoch() },
    },
    { upsert: true, returnDocument: 'after', lean: true },
  ).catch((err: unknown) => {
    // The filter misses an enabled factor, so the upsert collides with it on userId.
    if ((err as { code?: unknown }).code === 11000) return null;
    throw err;
  });
  if (!updated) throw conflict('Two-factor sign-in is on already: disable it first');
  return enrolmentOf(user, secret);
}

/** The set-up under way, to show its QR code again (after a wrong first code, say). */
export async function pendingEnrolment(
  user: Pick<UserRecord, 'id' | 'email'>,
  ctx: TwoFactorContext,
): Promise<Enrolment | undefined> {
  const doc = await TwoFactor.findOne({ userId: user.id }).lean();
  const secret = doc?.pendingSecret && !doc.secret ? decrypt(doc.pendingSecret, ctx) : undefined;
  return secret ? enrolmentOf(user, secret) : undefined;
}

/** Replaces the user's recovery codes with ten new ones, answered once (stored hashed). */
async function replaceRecoveryCodes(userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await RecoveryCode.deleteMany({ userId });
  await RecoveryCode.insertMany(
    codes.map((code) => ({
      userId,
      hash: hashRecoveryCode(userId, normaliseRecoveryCode(code) as string),
    })),
  );
  return codes;
}

/** Confirms the set-up with a first code from the app; answers the recovery codes, once. */
export async function confirmEnrolment(
  userId: number,
  code: string,
  ctx: TwoFactorContext,
): Promise<string[]> {
  requireKey(ctx);
  const doc = await TwoFactor.findOne({ userId }).lean();
  if (doc?.secret) throw conflict('Two-factor sign-in is on already');
  if (!doc?.pendingSecret) {
    throw conflict('No set-up is under way: start it with /api/account/2fa/setup first');
  }
  const secret = decrypt(doc.pendingSecret, ctx);
  const step = secret ? matchTotp(secret, code.trim(), 0) : undefined;
  if (step === undefined) throw wrongCode();
  const { modifiedCount } = await TwoFactor.updateOne(
    { userId, secret: null, pendingSecret: doc.pendingSecret },
    {
      $set: {
        secret: doc.pendingSecret,
        pendingSecret: null,
        enabledAt: new Date(),
        lastStep: step,
        deviceEpoch: newEpoch(),
      },
    },
  );
  if (modifiedCount !== 1) throw conflict('The set-up changed meanwhile: start it again');
  return replaceRecoveryCodes(userId);
}

/**
 * Checks a second factor: a current TOTP code (each accepted once) or an unused recovery code
 * (used up by this call). Undefined when it is neither.
 */
export async function checkSecondFactor(
  userId: number,
  input: string,
  ctx: TwoFactorContext,
): Promise<SecondFactor | undefined> {
  const doc = await enabledTwoFactor(userId);
  if (!doc?.secret) return undefined;
  const code = input.replace(/\s/g, '');
  if (/^\d{6}$/.test(code)) {
    const secret = decrypt(doc.secret, ctx);
    const step = secret ? matchTotp(secret, code, doc.lastStep) : undefined;
    if (step === undefined) return undefined;
    // Conditional on the step: two requests racing with one code cannot both pass.
    const { modifiedCount } = await TwoFactor.updateOne(
      { userId, lastStep: { $lt: step } },
      { $set: { lastStep: step } },
    );
    return modifiedCount === 1 ? 'totp' : undefined;
  }
  const normalised = normaliseRecoveryCode(code);
  if (!normalised) return undefined;
  const { modifiedCount } = await RecoveryCode.updateOne(
    { userId, hash: hashRecoveryCode(userId, normalised), usedAt: null },
    { $set: { usedAt: new Date() } },
  );
  return modifiedCount === 1 ? 'recovery' : undefined;
}

async function requireSecondFactor(
  userId: number,
  code: string | undefined,
  ctx: TwoFactorContext,
): Promise<SecondFactor> {
  if (!(await enabledTwoFactor(userId))) throw conflict('Two-factor sign-in is off');
  if (!code) throw validation('code is required: a code from your app or a recovery code', 'code');
  const factor = await checkSecondFactor(userId, code, ctx);
  if (!factor) throw wrongCode();
  return factor;
}

/** Turns two-factor sign-in off: needs the password and a current code (or a recovery code). */
export async function disableTwoFactor(
  user: UserRecord,
  input: { current?: string; code?: string },
  ctx: TwoFactorContext,
): Promise<SecondFactor> {
  await confirmCurrentPassword(user, input.current);
  const factor = await requireSecondFactor(user.id, input.code, ctx);
  await Promise.all([
    TwoFactor.deleteOne({ userId: user.id }),
    RecoveryCode.deleteMany({ userId: user.id }),
  ]);
  return factor;
}

/** Ten new recovery codes (the old ones stop working); needs the password and a current code. */
export async function regenerateRecoveryCodes(
  user: UserRecord,
  input: { current?: string; code?: string },
  ctx: TwoFactorContext,
): Promise<string[]> {
  await confirmCurrentPassword(user, input.current);
  await requireSecondFactor(user.id, input.code, ctx);
  return replaceRecoveryCodes(user.id);
}

/** Every remembered device asks for a code again at its next sign-in. */
export async function forgetDevices(userId: number): Promise<void> {
  await TwoFactor.updateOne({ userId }, { $set: { deviceEpoch: newEpoch() } });
}

/** A deleted user's second factor goes with them. */
export async function deleteTwoFactor(userId: number): Promise<void> {
  await Promise.all([TwoFactor.deleteOne({ userId }), RecoveryCode.deleteMany({ userId })]);
}
