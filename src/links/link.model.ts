import { Schema, model, type InferSchemaType } from 'mongoose';

/** Links on the service's own address (PUBLIC_URL) carry this domain id. */
export const DEFAULT_DOMAIN_ID = 0;

const linkSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    /** The branded domain the alias lives on, or DEFAULT_DOMAIN_ID. */
    domainId: { type: Number, required: true, default: DEFAULT_DOMAIN_ID },
    alias: { type: String, required: true },
    url: { type: String, required: true },
    title: { type: String, default: '' },
    description: { type: String, default: '' },
    expiry: { type: Date, default: null },
    passwordHash: { type: String, default: null },
    /** A link is in at most one campaign. */
    campaignId: { type: Number, default: null },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'links' },
);
linkSchema.index({ domainId: 1, alias: 1 }, { unique: true });
linkSchema.index({ userId: 1, id: -1 });
linkSchema.index({ campaignId: 1, id: 1 });
linkSchema.index({ alias: 1 });

export type LinkRecord = InferSchemaType<typeof linkSchema>;
export const Link = model<LinkRecord>('Link', linkSchema);
