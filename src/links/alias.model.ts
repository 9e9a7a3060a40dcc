import { Schema, model } from 'mongoose';

/**
 * Every alias ever handed out, per scope (`links:<domainId>`, `bio`). Rows are never deleted once
 * taken, so a deleted link's alias stays a tombstone and can never send old printed links
 * somewhere new. A claim is `pending` until the record holding the alias is stored (aliases.ts):
 * a failed store releases it, and one left by a crash can be claimed again once stale.
 */
const aliasReservationSchema = new Schema(
  {
    scope: { type: String, required: true },
    alias: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
    /** `pending` while the record is being stored; absent (older rows) or `taken`: for good. */
    state: { type: String, enum: ['pending', 'taken'] },
    claimedAt: { type: Date },
  },
  { versionKey: false, collection: 'alias_reservations' },
);
aliasReservationSchema.index({ scope: 1, alias: 1 }, { unique: true });

export const AliasReservation = model('AliasReservation', aliasReservationSchema);
