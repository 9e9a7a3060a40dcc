import { Schema, model } from 'mongoose';

/** The labels a click is counted under, stored once per bucket for all its clicks with them. */
const clickLabelsSchema = new Schema(
  {
    country: { type: String, required: true },
    referrer: { type: String, required: true },
    browser: { type: String, required: true },
    os: { type: String, required: true },
    social: { type: String, default: null },
    bot: { type: Boolean, required: true },
    /** The A/B variant's URL, for links with variants. */
    variant: { type: String },
  },
  { _id: false },
);

/** One stored visit of a bucket of the first form; raw addresses are never stored, only the salted visitor hash. */
const storedVisitSchema = new Schema(
  {
    entryId: { type: String, required: true },
    at: { type: Date, required: true },
    visitor: { type: String, required: true },
    ...clickLabelsSchema.obj,
  },
  { _id: false },
);

/**
 * The visits of one link or QR code that one drainer batch stored, written whole once and never
 * grown (MongoDB's bucket pattern): a burst of a thousand clicks is one document, not a thousand.
 * `entryIds` (click ids) are unique per target: a click stored twice, by two copies of it, two
 * workers at once or a worker and an API's spool, fails on the index instead. Written with the
 * driver (visit-buckets.ts): this schema documents the shape and declares the indexes.
 */
const visitBucketSchema = new Schema(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    targetId: { type: Number, required: true },
    /** The target's owner, counted into the account rollup (visit-owners.ts). */
    userId: { type: Number },
    from: { type: Date, required: true },
    to: { type: Date, required: true },
    /** The apply step that stored it (visit-buckets.ts): a replay counts it under this batch. */
    batch: { applier: String, seq: Number },
    entryIds: { type: [String], required: true },
    /** Each distinct set of labels of the bucket's clicks, once. */
    labels: { type: [clickLabelsSchema] },
    /**
     * The clicks, parallel to `entryIds`: JSON of [ms after `from`, visitor hash, index into
     * `labels`] columns (see visit-bucket-form.ts for why not a subdocument each).
     */
    packed: { type: String },
    /** The clicks of buckets stored before `packed`, a subdocument each; still read. */
    visits: { type: [storedVisitSchema] },
  },
  { versionKey: false, collection: 'visit_buckets' },
);
visitBucketSchema.index({ kind: 1, targetId: 1, from: -1 });
// A click is stored once, whatever delivered it (visit-buckets.ts `insertFreshBuckets`); the
// shard key (`targetId`) leads, as MongoDB requires of a unique index on a sharded collection.
visitBucketSchema.index({ targetId: 1, entryIds: 1 }, { unique: true });

// The retention sweep's filter and sort (visit-retention.ts).
visitBucketSchema.index({ to: 1 });

/** Running totals of one link or QR code (`_id` = `kind:id`), updated with `$inc`. */
const visitTotalSchema = new Schema(
  {
    _id: { type: String, required: true },
    clicks: { type: Number, default: 0 },
    bots: { type: Number, default: 0 },
    facebook: { type: Number, default: 0 },
    twitter: { type: Number, default: 0 },
    linkedin: { type: Number, default: 0 },
    /** Per applier, the last batch counted in (the replay guard, see visit-apply.ts). */
    g: { type: Schema.Types.Mixed },
  },
  { versionKey: false, collection: 'visit_totals' },
);

/** One counter per target, dimension and label: a document each, so no array grows. */
const visitCountSchema = new Schema(
  {
    target: { type: String, required: true },
    dim: { type: String, required: true },
    label: { type: String, required: true },
    count: { type: Number, default: 0 },
    g: { type: Schema.Types.Mixed },
  },
  { versionKey: false, collection: 'visit_counts' },
);
visitCountSchema.index({ target: 1, dim: 1, label: 1 }, { unique: true });
visitCountSchema.index({ target: 1, dim: 1, count: -1 });

export const VisitBucket = model('VisitBucket', visitBucketSchema);
export const VisitTotal = model('VisitTotal', visitTotalSchema);
export const VisitCount = model('VisitCount', visitCountSchema);

const settingSchema = new Schema(
  { _id: { type: String, required: true }, value: { type: String, required: true } },
  { versionKey: false, collection: 'settings' },
);
export const Setting = model('Setting', settingSchema);

/** Indexes of `visit_buckets` that `{targetId, entryIds}` (unique) replaced: the migration step drops them. */
export const RETIRED_VISIT_BUCKET_INDEXES = ['entryIds_1'];

/** Drops the retired indexes (each a write cost on every bucket stored); absent ones are skipped. */
export async function dropRetiredVisitBucketIndexes(): Promise<string[]> {
  const existing = await VisitBucket.collection
    .listIndexes()
    .toArray()
    .catch(() => []);
  const names = new Set(existing.map((index) => String(index.name)));
  const dropped: string[] = [];
  for (const name of RETIRED_VISIT_BUCKET_INDEXES.filter((n) => names.has(n))) {
    try {
      await VisitBucket.collection.dropIndex(name);
      dropped.push(name);
    } catch (err) {
      // The embedded engine has no dropIndexes (it keeps nothing across restarts either).
      if (!String((err as Error).message).includes('no such command')) throw err;
    }
  }
  return dropped;
}
