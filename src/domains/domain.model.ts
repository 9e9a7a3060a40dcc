import { Schema, model, type InferSchemaType } from 'mongoose';

const brandedDomainSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    /** Normalised origin as the user named it, e.g. `https://go.example.com`. */
    domain: { type: String, required: true },
    /** Lower-case host name; unique, because one host can serve only one owner's links. */
    host: { type: String, required: true, unique: true },
    redirectroot: { type: String, default: null },
    redirect404: { type: String, default: null },
    /** JSON served at /.well-known/apple-app-site-association (iOS universal links). */
    appleAppSiteAssociation: { type: String, default: null },
    /** JSON served at /.well-known/assetlinks.json (Android app links). */
    assetLinks: { type: String, default: null },
    createdAt: { type: Date, required: true, default: () => new Date() },
    /**
     * Ownership (issue 29, M6): `pending` until the TXT record `_linkqr.<host>` carries
     * `verifyToken`, then `verified`; `suspended` when a re-check finds it gone. Only a verified
     * domain serves. Records older than the field have none: the worker gives them a token and
     * a grace period (`graceUntil`) before a missing record suspends them.
     */
    status: { type: String, enum: ['pending', 'verified', 'suspended'], default: null },
    verifyToken: { type: String, default: null },
    verifiedAt: { type: Date, default: null },
    checkedAt: { type: Date, default: null },
    /** When the worker checks the record next. */
    nextCheckAt: { type: Date, default: null },
    suspendedAt: { type: Date, default: null },
    graceUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'domains' },
);
brandedDomainSchema.index({ userId: 1, id: -1 });
// The worker's re-verification sweep takes the domains due first.
brandedDomainSchema.index({ nextCheckAt: 1 });

export type BrandedDomainRecord = InferSchemaType<typeof brandedDomainSchema>;
export const BrandedDomain = model('BrandedDomain', brandedDomainSchema);
