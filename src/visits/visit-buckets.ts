import mongoose, { type mongo } from 'mongoose';
import { isOnlyDuplicateKeys } from '../shared/db/duplicate-key';
import { VisitBucket } from './visit.model';
import { withoutEntries, type BatchId, type BucketDoc } from './visit-bucket-form';

function buckets(): mongo.Collection<BucketDoc> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('MongoDB is not connected');
  return db.collection<BucketDoc>(VisitBucket.collection.collectionName);
}

/** The batch's targets and entry ids: what finding their stored buckets is routed by. */
export interface StoredLookup {
  targetIds: number[];
  entryIds: string[];
}

/** Stored buckets holding any of `entryIds` (what an earlier delivery already stored). */
export async function storedBucketsOf(lookup: StoredLookup): Promise<BucketDoc[]> {
  return buckets()
    .find({ targetId: { $in: [...new Set(lookup.targetIds)] }, entryIds: { $in: lookup.entryIds } })
    .toArray();
}

function sameBatch(a: BatchId | undefined, b: BatchId): boolean {
  return a !== undefined && a.applier === b.applier && a.seq === b.seq;
}

const INSERT_TRIES = 5;

/**
 * Inserts a batch's new buckets and returns what was stored by this batch: the buckets, less
 * any click another copy of it already stored. The unique `{targetId, entryIds}` index is the
 * judge, so two copies of a click (an XADD re-sent after its answer was lost, an entry delivered
 * again after a failover rolled its consumer group back, a spool write straight into MongoDB)
 * stored at the same moment by two workers are still stored once. On a duplicate key, the
 * batch's stored buckets are read back (the embedded engine rejects a whole `insertMany` on one
 * duplicate, MongoDB only the duplicate documents): those this batch wrote are kept, the clicks
 * some other write holds are dropped, and the rest is inserted again.
 */
export async function insertFreshBuckets(docs: BucketDoc[], batch: BatchId): Promise<BucketDoc[]> {
  const inserted: BucketDoc[] = [];
  let pending = docs;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    try {
      await buckets().insertMany(pending, { ordered: false });
      return inserted.concat(pending);
    } catch (err) {
      if (!isOnlyDuplicateKeys(err) || attempt >= INSERT_TRIES) throw err;
    }
    const stored = await storedBucketsOf({
      targetIds: pending.map((d) => d.targetId),
      entryIds: pending.flatMap((d) => d.entryIds),
    });
    const ours = new Set(stored.filter((s) => sameBatch(s.batch, batch)).map((s) => s._id));
    const elsewhere = new Set(stored.filter((s) => !ours.has(s._id)).flatMap((s) => s.entryIds));
    const next: BucketDoc[] = [];
    for (const doc of pending) {
      if (ours.has(doc._id)) inserted.push(doc);
      else {
        const rest = withoutEntries(doc, elsewhere);
        if (rest) next.push(rest);
      }
    }
    pending = next;
  }
  return inserted;
}
