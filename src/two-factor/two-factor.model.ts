import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * A user's TOTP second factor, one document per user, apart from the user record (which every
 * cached API key carries): the secret never rides along with a key lookup.
 */
const twoFactorSchema = new Schema(
  {
    userId: { type: Number, required: true, unique: true },
    /** The confirmed secret (base32), AES-256-GCM encrypted as webhook secrets are; null until confirmed. */
    secret: { type: String, default: null },
    /** The secret being enrolled, encrypted; it becomes `secret` when a first code confirms it. */
    pendingSecret: { type: String, default: null },
    /** Names the WEBHOOK_SECRET_KEY that encrypted the secrets (keyIdOf). */
    secretKeyId: { type: String, default: null },
    enabledAt: { type: Date, default: null },
    /** The TOTP time step of the last accepted code: a code is good once (RFC 6238, 5.2). */
    lastStep: { type: Number, default: 0 },
    /** Remembered devices carry it: changing it (disable, "forget devices") ends them all. */
    deviceEpoch: { type: String, required: true },
  },
  { versionKey: false, collection: 'two_factor' },
);

export type TwoFactorRecord = InferSchemaType<typeof twoFactorSchema>;
export const TwoFactor = model('TwoFactor', twoFactorSchema);

/**
 * One-time recovery codes, one document each (no arrays to $pull from): using one is a single
 * conditional update, so two sign-ins racing with the same code cannot both win.
 */
const recoveryCodeSchema = new Schema(
  {
    userId: { type: Number, required: true },
    /** SHA-256 of the user id and the code: the codes carry 80 random bits each. */
    hash: { type: String, required: true },
    usedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'two_factor_recovery_codes' },
);

recoveryCodeSchema.index({ userId: 1, hash: 1 }, { unique: true });

export type RecoveryCodeRecord = InferSchemaType<typeof recoveryCodeSchema>;
export const RecoveryCode = model('RecoveryCode', recoveryCodeSchema);
