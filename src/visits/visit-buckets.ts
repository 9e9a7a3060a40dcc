import mongoose, { type mongo } from 'mongoose';
import { isOnlyDuplicateKeys } from '../shared/db/duplicate-key';
import { VisitBucket } from './visit.model';
import { targetKey, type DescribedVisit, type VisitKind } from './visits.types';

/**
 * Which apply step wrote a bucket: an applier identity and its batch number. Every rollup
 * document remembers, per applier, the last batch counted into it, so counting a bucket again
 * (a replay after a crash) is refused document by document.
 */
export interface BatchId {
  applier: string;
  seq: number;
}

export interface BucketVisit {
  entryId: string;
  at: Date;
  visitor: string;
  country: string;
  referrer: string;
  browser: string;
  os: string;
  social: string | null;
  bot: boolean;
  variant?: string;
}

/** The stored shape of a bucket (see visit.model.ts), written with the driver. */
export interface BucketDoc {
  _id: string;
  kind: VisitKind;
  targetId: number;
  /** The owner of the link or code, for the account rollup (absent on older buckets). */
  userId?: number;
  from: Date;
  to: Date;
  /** Absent on buckets stored before batches were numbered (those were counted at once). */
  batch: BatchId;
  entryIds: string[];
  visits: BucketVisit[];
}

/** One bucket per target for a batch of described visits. */
export function toBuckets(
  described: ReadonlyArray<{ entryId: string; visit: DescribedVisit }>,
  batch: BatchId,
): BucketDoc[] {
  const byTarget = new Map<string, Array<{ entryId: string; visit: DescribedVisit }>>();
  for (const item of described) {
    const key = targetKey({ kind: item.visit.kind, id: item.visit.targetId });
    const list = byTarget.get(key);
    if (list) list.push(item);
    else byTarget.set(key, [item]);
  }
  return [...byTarget].map(([key, items]) => {
    const first = items[0] as { entryId: string; visit: DescribedVisit };
    let from = Infinity;
    let to = -Infinity;
    for (const { visit } of items) {
      from = Math.min(from, visit.at);
      to = Math.max(to, visit.at);
    }
    return {
      _id: `${key}:${first.entryId}`,
      kind: first.visit.kind,
      targetId: first.visit.targetId,
      from: new Date(from),
      to: new Date(to),
      batch,
      entryIds: items.map((i) => i.entryId),
      visits: items.map(({ entryId, visit }) => ({
        entryId,
        at: new Date(visit.at),
        visitor: visit.visitor,
        country: visit.country,
        referrer: visit.referrerLabel,
        browser: visit.browser,
        os: visit.os,
        social: visit.social,
        bot: visit.bot,
        ...(visit.variant ? { variant: visit.variant } : {}),
      })),
    };
  });
}

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

/** The bucket without some of its visits (those stored elsewhere), re-keyed; null when none is left. */
function withoutEntries(doc: BucketDoc, drop: ReadonlySet<string>): BucketDoc | null {
  const visits = doc.visits.filter((v) => !drop.has(v.entryId));
  if (visits.length === doc.visits.length) return doc;
  const first = visits[0];
  if (!first) return null;
  const times = visits.map((v) => v.at.getTime());
  return {
    ...doc,
    _id: `${targetKey({ kind: doc.kind, id: doc.targetId })}:${first.entryId}`,
    from: new Date(Math.min(...times)),
    to: new Date(Math.max(...times)),
    entryIds: visits.map((v) => v.entryId),
    visits,
  };
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
