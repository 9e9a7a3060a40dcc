import mongoose from 'mongoose';
import { VisitTotal } from '../visits/visit.model';
import { targetKey } from '../visits/visits.types';
import { Link, type LinkRecord } from './link.model';
import { searchKeysOf } from './link-search';

const BATCH = 500;

/**
 * Gives links stored before they had them their search keys and running click total (the
 * migration step, see cli/migrate.cli.ts): a batch of links at a time, by id, resumable.
 */
export async function backfillLinks(): Promise<number> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('MongoDB is not connected');
  let updated = 0;
  let after = 0;
  for (;;) {
    const links = await Link.find({ id: { $gt: after }, searchKeys: { $exists: false } })
      .sort({ id: 1 })
      .limit(BATCH)
      .lean<LinkRecord[]>();
    if (links.length === 0) return updated;
    const totals = await VisitTotal.find({
      _id: { $in: links.map((l) => targetKey({ kind: 'link', id: l.id })) },
    }).lean();
    const clicks = new Map(totals.map((t) => [String(t._id), t.clicks ?? 0]));
    await db.collection(Link.collection.collectionName).bulkWrite(
      links.map((l) => ({
        updateOne: {
          filter: { id: l.id },
          update: {
            $set: {
              searchKeys: searchKeysOf(l),
              clicks: clicks.get(targetKey({ kind: 'link', id: l.id })) ?? 0,
            },
          },
        },
      })),
      { ordered: false },
    );
    updated += links.length;
    after = (links[links.length - 1] as LinkRecord).id;
  }
}
