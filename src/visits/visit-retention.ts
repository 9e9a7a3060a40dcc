import { VisitBucket } from './visit.model';
import { clickCountOf, type BucketDoc } from './visit-bucket-form';

const DAY_MS = 86_400_000;

/**
 * Deletes stored raw visits older than `days`, a small batch of buckets per call, so MongoDB is
 * never asked to delete millions of documents at once. A bucket goes once its newest visit is
 * older than the cutoff. Rollups (totals, labels, hourly series) are not touched.
 */
export async function purgeExpiredVisits(
  days: number,
  options: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - days * DAY_MS);
  const batchSize = options.batchSize ?? 100;
  let deleted = 0;
  for (;;) {
    const expired = await VisitBucket.find({ to: { $lt: cutoff } })
      .sort({ to: 1 })
      .limit(batchSize)
      .lean<BucketDoc[]>();
    if (expired.length === 0) return deleted;
    const result = await VisitBucket.deleteMany({ _id: { $in: expired.map((b) => b._id) } });
    deleted += expired.reduce((n, b) => n + clickCountOf(b), 0);
    if (result.deletedCount < batchSize) return deleted;
  }
}
