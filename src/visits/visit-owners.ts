import { LRUCache } from 'lru-cache';
import { Link } from '../links/link.model';
import { QrCode } from '../qr-codes/qr-code.model';
import type { BucketDoc } from './visit-bucket-form';
import { targetKey, type VisitKind } from './visits.types';

/** Owners of links and codes seen lately: a link never changes owner, so an entry never goes stale. */
const owners = new LRUCache<string, number>({ max: 50_000 });

async function lookUp(kind: VisitKind, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  // Bounded by one batch's distinct targets, by the unique index on `id`.
  const filter = { id: { $in: ids } };
  const docs = kind === 'link' ? await Link.find(filter).lean() : await QrCode.find(filter).lean();
  for (const doc of docs) owners.set(targetKey({ kind, id: doc.id }), doc.userId);
}

/**
 * Stores on each bucket without one the id of the user who owns its link or QR code, so the
 * account rollup counts it (a replay reads the owner stored with the bucket, and counts it into
 * the same account documents). A target deleted meanwhile has no owner: its visits count into no
 * account, as its statistics are gone too.
 */
export async function attachOwners(buckets: BucketDoc[]): Promise<void> {
  const missing = (kind: VisitKind) => [
    ...new Set(
      buckets
        .filter((b) => b.kind === kind && b.userId === undefined)
        .map((b) => b.targetId)
        .filter((id) => !owners.has(targetKey({ kind, id }))),
    ),
  ];
  await Promise.all([lookUp('link', missing('link')), lookUp('qr', missing('qr'))]);
  for (const bucket of buckets) {
    if (bucket.userId !== undefined) continue;
    const owner = owners.get(targetKey({ kind: bucket.kind, id: bucket.targetId }));
    if (owner !== undefined) bucket.userId = owner;
  }
}
