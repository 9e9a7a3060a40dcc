import mongoose from 'mongoose';
import { Link } from '../links/link.model';
import { VisitTotal } from '../visits/visit.model';
import type { BucketDoc } from '../visits/visit-bucket-form';
import { targetKey } from '../visits/visits.types';

/**
 * Copies the click totals of a batch's links onto the links themselves (`clicks`), where a list
 * sorts on an index ({userId, clicks, id}) instead of ranking every link of the user in memory.
 * The total is read after the batch was counted, and written only when larger: writes of
 * concurrent appliers may land in any order, the largest (the latest) total wins, and a replay
 * changes nothing. Runs after the guarded counting, so a crash before it leaves the link behind
 * by at most this batch until the link's next batch.
 */
export async function copyClickTotalsToLinks(buckets: readonly BucketDoc[]): Promise<void> {
  const ids = [...new Set(buckets.filter((b) => b.kind === 'link').map((b) => b.targetId))];
  if (ids.length === 0) return;
  const totals = await VisitTotal.find({
    _id: { $in: ids.map((id) => targetKey({ kind: 'link', id })) },
  }).lean();
  const db = mongoose.connection.db;
  if (!db || totals.length === 0) return;
  await db.collection(Link.collection.collectionName).bulkWrite(
    totals.map((t) => {
      const clicks = t.clicks ?? 0;
      return {
        updateOne: {
          filter: { id: Number(String(t._id).split(':')[1]), clicks: { $not: { $gte: clicks } } },
          update: { $set: { clicks } },
        },
      };
    }),
    { ordered: false },
  );
}
