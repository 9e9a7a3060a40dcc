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

/** Stored buckets holding any of `entryIds` (what an earlier delivery already stored). */
export async function storedBucketsOf(entryIds: string[]): Promise<BucketDoc[]> {
  return buckets()
    .find({ entryIds: { $in: entryIds } })
    .toArray();
}

/**
 * Inserts the buckets with the driver: they were validated when captured, so mongoose's casting
 * is pure cost here. A bucket already there (same id) was stored by an earlier try: skipped.
 */
export async function insertBuckets(docs: BucketDoc[]): Promise<void> {
  if (docs.length === 0) return;
  try {
    await buckets().insertMany(docs, { ordered: false });
  } catch (err) {
    if (!isOnlyDuplicateKeys(err)) throw err;
  }
}
