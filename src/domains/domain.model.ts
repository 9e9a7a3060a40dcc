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
  },
  { versionKey: false, collection: 'domains' },
);
brandedDomainSchema.index({ userId: 1, id: -1 });

export type BrandedDomainRecord = InferSchemaType<typeof brandedDomainSchema>;
export const BrandedDomain = model('BrandedDomain', brandedDomainSchema);
