import { Schema, model, type InferSchemaType } from 'mongoose';

const campaignSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    name: { type: String, default: '' },
    /** Forms the rotator URL `/r/{slug}`; null when the campaign has no rotator. */
    slug: { type: String, default: null },
    public: { type: Boolean, default: false },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'campaigns' },
);
campaignSchema.index({ userId: 1, id: -1 });
// Slugs are unique across the service; campaigns without one (null) do not collide.
campaignSchema.index(
  { slug: 1 },
  { unique: true, partialFilterExpression: { slug: { $type: 'string' } } },
);

export type CampaignRecord = InferSchemaType<typeof campaignSchema>;
export const Campaign = model<CampaignRecord>('Campaign', campaignSchema);
