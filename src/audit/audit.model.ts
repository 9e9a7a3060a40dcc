import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * One write through the API or the dashboard. Append-only; MongoDB's TTL monitor deletes an entry
 * at `expiresAt` (written as `at` + AUDIT_RETENTION_DAYS), so retention needs no job of its own.
 */
const auditEntrySchema = new Schema(
  {
    at: { type: Date, required: true },
    expiresAt: { type: Date, required: true, index: { expireAfterSeconds: 0 } },
    /** The account whose records were written. */
    accountId: { type: Number, required: true },
    /** Who wrote: the account's owner or, acting in it, a member. */
    actorId: { type: Number, required: true },
    /** The key used (0: the default key); null for a dashboard session. */
    keyId: { type: Number, default: null },
    via: { type: String, required: true, enum: ['key', 'session'] },
    method: { type: String, required: true },
    route: { type: String, required: true },
    type: { type: String, required: true },
    recordId: { type: Number, default: null },
    /** The fields the request set, secrets replaced by a marker (see audit-summary.ts). */
    changes: { type: Schema.Types.Mixed, default: {} },
    ip: { type: String, default: null },
  },
  { versionKey: false, collection: 'audit_log', minimize: false },
);

// The list's whole order (newest first, `_id` between entries of one millisecond): a page, and a
// page after an entry, reads its entries off the index; {accountId, at} alone left the `_id`
// tie-break to an in-memory sort of every entry of the account.
auditEntrySchema.index({ accountId: 1, at: -1, _id: -1 });

export type AuditEntryRecord = InferSchemaType<typeof auditEntrySchema>;
export const AuditEntry = model('AuditEntry', auditEntrySchema);
