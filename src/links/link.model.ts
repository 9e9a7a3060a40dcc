import { Schema, model, type InferSchemaType } from 'mongoose';
import { LINK_TYPES } from './link-behaviour.schemas';
import { HEALTH_STATUSES } from './link-health';

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
    /** What a visitor meets (see link-behaviour.schemas.ts); records without it are `direct`. */
    type: { type: String, enum: LINK_TYPES, default: 'direct' },
    splashId: { type: Number, default: null },
    overlayId: { type: Number, default: null },
    pixelIds: { type: [Number], default: [] },
    geotarget: { type: [{ _id: false, location: String, link: String }], default: [] },
    devicetarget: { type: [{ _id: false, device: String, link: String }], default: [] },
    languagetarget: { type: [{ _id: false, language: String, link: String }], default: [] },
    /** Redirect rules in order (see src/visitor/rules/rules.schemas.ts). */
    rules: { type: [{ _id: false, url: String, when: Schema.Types.Mixed }], default: [] },
    /** A/B split: integer weights adding up to 100. */
    variants: { type: [{ _id: false, url: String, weight: Number }], default: [] },
    /** Counted clicks after which the link has expired; null: no limit. */
    maxClicks: { type: Number, default: null },
    /** Where visitors of an expired link go (by date or by clicks); null: the 410 page. */
    expiredUrl: { type: String, default: null },
    /** Whether the worker checks the destination (`url`) for a dead page (issue 24, item 5). */
    monitor: { type: Boolean, default: false },
    /** Where visitors go while the destination is broken; null: they keep the destination. */
    fallback: { type: String, default: null },
    /** What the checks found (link-health.ts); null until the first check. */
    health: {
      type: new Schema(
        {
          status: { type: String, enum: HEALTH_STATUSES, required: true },
          checked: { type: Date, default: null },
          since: { type: Date, default: null },
          lastError: { type: String, default: null },
          failures: { type: Number, default: 0 },
        },
        { _id: false },
      ),
      default: null,
    },
    parameters: { type: [{ _id: false, name: String, value: String }], default: [] },
    metatitle: { type: String, default: '' },
    metadescription: { type: String, default: '' },
    metaimage: { type: String, default: '' },
    createdAt: { type: Date, required: true, default: () => new Date() },
    /** Running click total, copied from the visit totals by the apply step (stats/link-clicks.ts). */
    clicks: { type: Number, default: 0 },
    /** Normalised prefixes the dashboard search matches (link-search.ts). */
    searchKeys: { type: [String], default: [] },
  },
  { versionKey: false, collection: 'links' },
);
linkSchema.index({ domainId: 1, alias: 1 }, { unique: true });
linkSchema.index({ userId: 1, id: -1 });
// `order=click` and the dashboard's sort by clicks, a page at a time.
linkSchema.index({ userId: 1, clicks: -1, id: -1 });
// The dashboard search: an anchored prefix of a normalised key (link-search.ts).
linkSchema.index({ userId: 1, searchKeys: 1 });
linkSchema.index({ campaignId: 1, id: 1 });
linkSchema.index({ alias: 1 });
linkSchema.index({ splashId: 1 });
linkSchema.index({ overlayId: 1 });
linkSchema.index({ pixelIds: 1 });
// The worker's link checks: monitored links due for a check, then every link of a destination.
linkSchema.index({ monitor: 1, 'health.checked': 1 });
linkSchema.index({ monitor: 1, url: 1 });

export type LinkRecord = InferSchemaType<typeof linkSchema>;
export const Link = model<LinkRecord>('Link', linkSchema);
