import { Schema, model } from 'mongoose';

/**
 * Every alias ever handed out, per scope (`links:<domainId>`, `bio`). Rows are never deleted, so a
 * deleted link's alias stays a tombstone and can never send old printed links somewhere new.
 */
const aliasReservationSchema = new Schema(
  {
    scope: { type: String, required: true },
    alias: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'alias_reservations' },
);
aliasReservationSchema.index({ scope: 1, alias: 1 }, { unique: true });

export const AliasReservation = model('AliasReservation', aliasReservationSchema);
