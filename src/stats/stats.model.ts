import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * Clicks of one link or QR code in one UTC hour, kept up to date at drain time with `$inc`, so a
 * time series is a bounded read (at most one document per target and hour) whatever the traffic.
 * `sketch` names the day's unique-visitor sketch (`target|YYYY-MM-DD`, see stats-rollup.ts).
 */
const visitHourSchema = new Schema(
  {
    target: { type: String, required: true },
    hour: { type: Date, required: true },
    sketch: { type: String, required: true },
    clicks: { type: Number, default: 0 },
    uniques: { type: Number, default: 0 },
    bots: { type: Number, default: 0 },
  },
  { versionKey: false, collection: 'visit_hours' },
);
visitHourSchema.index({ target: 1, hour: 1 }, { unique: true });

/** Clicks per label (country, referrer, browser, OS) of one target in one UTC hour. */
const visitHourLabelSchema = new Schema(
  {
    target: { type: String, required: true },
    hour: { type: Date, required: true },
    dim: { type: String, required: true },
    label: { type: String, required: true },
    count: { type: Number, default: 0 },
  },
  { versionKey: false, collection: 'visit_hour_labels' },
);
visitHourLabelSchema.index({ target: 1, hour: 1, dim: 1, label: 1 }, { unique: true });
visitHourLabelSchema.index({ target: 1, dim: 1, hour: 1 });

export type VisitHourRecord = InferSchemaType<typeof visitHourSchema>;
export const VisitHour = model('VisitHour', visitHourSchema);
export const VisitHourLabel = model('VisitHourLabel', visitHourLabelSchema);
