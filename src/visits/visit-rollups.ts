import { VisitCount, VisitTotal } from './visit.model';
import { targetKey, type Dimension } from './visits.types';
import type { BucketDoc } from './visit-bucket-form';
import {
  accountHourlyLabelsRollup,
  accountHourlyRollup,
  clickGroupsOf,
  hourlyLabelsRollup,
  hourlyRollup,
  labelsOf,
} from '../stats/stats-rollup';

/** One counter document to `$inc`: which collection, which document, by how much. */
export interface RollupIncrement {
  collection: string;
  filter: Record<string, unknown>;
  inc: Record<string, number>;
}

/**
 * Turns the buckets of one batch into counter increments. The apply step sums them per document,
 * guards them against replays and writes each collection with one bulkWrite; adding a rollup
 * (hourly series, say) means adding a contributor to `ROLLUPS`.
 */
export type RollupContributor = (buckets: readonly BucketDoc[]) => RollupIncrement[];

/** Running totals per target: clicks, bots, social networks. */
export const totalsRollup: RollupContributor = (buckets) =>
  buckets.map((bucket) => {
    const inc: Record<string, number> = {};
    const add = (field: string, n: number) => (inc[field] = (inc[field] ?? 0) + n);
    for (const { labels, n } of clickGroupsOf(bucket)) {
      if (labels.bot) {
        add('bots', n);
        continue;
      }
      add('clicks', n);
      if (labels.social) add(labels.social, n);
    }
    return {
      collection: VisitTotal.collection.collectionName,
      filter: { _id: targetKey({ kind: bucket.kind, id: bucket.targetId }) },
      inc,
    };
  });

/** One counter per target, dimension and label (top countries, referrers, browsers, OS). */
export const countsRollup: RollupContributor = (buckets) => {
  const collection = VisitCount.collection.collectionName;
  const out: RollupIncrement[] = [];
  for (const bucket of buckets) {
    const target = targetKey({ kind: bucket.kind, id: bucket.targetId });
    const counts = new Map<string, { dim: Dimension; label: string; count: number }>();
    // The hourly label groups, summed over hours: the same counts, one look at each click fewer.
    for (const { labels, n } of clickGroupsOf(bucket)) {
      if (labels.bot) continue;
      for (const [dim, label] of labelsOf(labels)) {
        const key = `${dim}\0${label}`;
        const counted = counts.get(key);
        if (counted) counted.count += n;
        else counts.set(key, { dim, label, count: n });
      }
    }
    for (const { dim, label, count } of counts.values()) {
      out.push({ collection, filter: { target, dim, label }, inc: { count } });
    }
  }
  return out;
};

export const ROLLUPS: RollupContributor[] = [
  totalsRollup,
  countsRollup,
  hourlyRollup,
  hourlyLabelsRollup,
  accountHourlyRollup,
  accountHourlyLabelsRollup,
];
