import { VisitCount, VisitTotal } from './visit.model';
import { targetKey, type Dimension } from './visits.types';
import type { BucketDoc } from './visit-buckets';
import { hourlyLabelsRollup, hourlyRollup } from '../../stats/stats-rollup';

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
    const add = (field: string) => (inc[field] = (inc[field] ?? 0) + 1);
    for (const visit of bucket.visits) {
      if (visit.bot) {
        add('bots');
        continue;
      }
      add('clicks');
      if (visit.social) add(visit.social);
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
    const counts = new Map<string, number>();
    for (const visit of bucket.visits) {
      if (visit.bot) continue;
      const labels: Record<Dimension, string> = {
        country: visit.country,
        referrer: visit.referrer,
        browser: visit.browser,
        os: visit.os,
      };
      for (const [dim, label] of Object.entries(labels)) {
        const key = JSON.stringify([dim, label]);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    for (const [key, count] of counts) {
      const [dim, label] = JSON.parse(key) as [string, string];
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
];
