import type { AnyBulkWriteOperation } from 'mongoose';
import type { Redis } from 'ioredis';
import type { RedisKeys } from '../infra/redis-keys';
import { describeVisit } from './visit-describe';
import { Visit, VisitCount, VisitTotal } from './visit.model';
import { uniqueVisitorsKey } from './visit-stream';
import { targetKey, type CapturedVisit, type DescribedVisit, type Dimension } from './visits.types';

export interface QueuedVisit {
  /** Unique per visit (the stream entry id); makes storing a redelivered visit a no-op. */
  entryId: string;
  visit: CapturedVisit;
}

function isDuplicateOnly(err: unknown): boolean {
  const writeErrors = (err as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> })
    .writeErrors;
  if (!Array.isArray(writeErrors) || writeErrors.length === 0)
    return (err as { code?: number }).code === 11000;
  return writeErrors.every((e) => (e.code ?? e.err?.code) === 11000);
}

/** Stores the raw visits; returns the ids stored now (not those a previous delivery stored). */
async function storeRaw(
  described: Array<{ entryId: string; visit: DescribedVisit }>,
): Promise<Set<string>> {
  const ids = described.map((d) => d.entryId);
  const already = new Set(
    (await Visit.find({ _id: { $in: ids } }, { _id: 1 }).lean()).map((doc) => String(doc._id)),
  );
  const fresh = described.filter((d) => !already.has(d.entryId));
  if (fresh.length === 0) return new Set();
  try {
    await Visit.insertMany(
      fresh.map(({ entryId, visit }) => ({
        _id: entryId,
        kind: visit.kind,
        targetId: visit.targetId,
        at: new Date(visit.at),
        visitor: visit.visitor,
        country: visit.country,
        referrer: visit.referrerLabel,
        browser: visit.browser,
        os: visit.os,
        social: visit.social,
        bot: visit.bot,
      })),
      { ordered: false },
    );
  } catch (err) {
    // A concurrent drainer stored some of them first; the rest went in.
    if (!isDuplicateOnly(err)) throw err;
    const stored = new Set(
      (await Visit.find({ _id: { $in: fresh.map((f) => f.entryId) } }, { _id: 1 }).lean()).map(
        (d) => String(d._id),
      ),
    );
    return new Set([...stored].filter((id) => !already.has(id)));
  }
  return new Set(fresh.map((f) => f.entryId));
}

function add(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

/**
 * Applies a batch of visits: raw records, then `$inc` rollups and HyperLogLog uniques, summed per
 * batch so a burst of a thousand clicks on one link costs a handful of writes.
 */
export async function applyVisits(
  batch: QueuedVisit[],
  redis: Redis,
  keys: RedisKeys,
): Promise<number> {
  if (batch.length === 0) return 0;
  const described = batch.map(({ entryId, visit }) => ({ entryId, visit: describeVisit(visit) }));
  const stored = await storeRaw(described);
  const totals = new Map<string, Map<string, number>>();
  const counts = new Map<string, number>();
  const visitors = new Map<string, Set<string>>();
  for (const { entryId, visit } of described) {
    if (!stored.has(entryId)) continue;
    const target = targetKey({ kind: visit.kind, id: visit.targetId });
    const total = totals.get(target) ?? new Map<string, number>();
    totals.set(target, total);
    if (visit.bot) {
      add(total, 'bots');
      continue;
    }
    add(total, 'clicks');
    if (visit.social) add(total, visit.social);
    const labels: Record<Dimension, string> = {
      country: visit.country,
      referrer: visit.referrerLabel,
      browser: visit.browser,
      os: visit.os,
    };
    for (const [dim, label] of Object.entries(labels))
      add(counts, JSON.stringify([target, dim, label]));
    const seen = visitors.get(target) ?? new Set<string>();
    seen.add(visit.visitor);
    visitors.set(target, seen);
  }

  const totalOps: AnyBulkWriteOperation[] = [...totals].map(([target, inc]) => ({
    updateOne: { filter: { _id: target }, update: { $inc: Object.fromEntries(inc) }, upsert: true },
  }));
  const countOps: AnyBulkWriteOperation[] = [...counts].map(([key, n]) => {
    const [target, dim, label] = JSON.parse(key) as [string, string, string];
    return {
      updateOne: { filter: { target, dim, label }, update: { $inc: { count: n } }, upsert: true },
    };
  });
  if (totalOps.length) await VisitTotal.bulkWrite(totalOps as never, { ordered: false });
  if (countOps.length) await VisitCount.bulkWrite(countOps as never, { ordered: false });
  if (visitors.size > 0) {
    const pipeline = redis.pipeline();
    for (const [target, set] of visitors) pipeline.pfadd(uniqueVisitorsKey(keys, target), ...set);
    // Uniques live in Redis; when it is down they are the one figure that may come out low.
    await pipeline.exec().catch(() => undefined);
  }
  return stored.size;
}
