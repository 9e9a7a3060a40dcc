import type { AnyBulkWriteOperation } from 'mongoose';
import type { Redis } from 'ioredis';
import type { RedisKeys } from '../infra/redis-keys';
import { writeRollups } from '../../stats/stats-rollup';
import { describeVisit } from './visit-describe';
import { VisitBucket, VisitCount, VisitTotal } from './visit.model';
import { uniqueVisitorsKey } from './visit-stream';
import { targetKey, type CapturedVisit, type DescribedVisit, type Dimension } from './visits.types';

export interface QueuedVisit {
  /** Unique per visit (the stream entry id); makes storing a redelivered visit a no-op. */
  entryId: string;
  visit: CapturedVisit;
}

/** Told of every applied batch (the `clicks` webhook); must not throw. */
export type VisitBatchHook = (visits: DescribedVisit[]) => Promise<void>;

/** Entry ids among `ids` that an earlier delivery already stored. */
async function alreadyStored(ids: string[]): Promise<Set<string>> {
  const buckets = await VisitBucket.find({ entryIds: { $in: ids } }).lean();
  const wanted = new Set(ids);
  return new Set(buckets.flatMap((b) => b.entryIds).filter((id) => wanted.has(id)));
}

/** Stores the visits as one bucket per target. */
async function storeBuckets(
  described: Array<{ entryId: string; visit: DescribedVisit }>,
): Promise<void> {
  const byTarget = new Map<string, Array<{ entryId: string; visit: DescribedVisit }>>();
  for (const item of described) {
    const key = targetKey({ kind: item.visit.kind, id: item.visit.targetId });
    byTarget.set(key, [...(byTarget.get(key) ?? []), item]);
  }
  const buckets = [...byTarget].map(([key, items]) => {
    const first = items[0] as { entryId: string; visit: DescribedVisit };
    const times = items.map((i) => i.visit.at);
    return {
      _id: `${key}:${first.entryId}`,
      kind: first.visit.kind,
      targetId: first.visit.targetId,
      from: new Date(Math.min(...times)),
      to: new Date(Math.max(...times)),
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
      })),
    };
  });
  await VisitBucket.insertMany(buckets, { ordered: false });
}

function add(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

/**
 * Applies a batch of visits: raw records, then `$inc` rollups and HyperLogLog uniques, summed per
 * batch so a burst of a thousand clicks on one link costs a handful of writes. Entries that may
 * have been delivered before (claimed from a drainer that died) are first checked against what
 * is stored, so a redelivery is neither stored nor counted twice.
 */
export async function applyVisits(
  batch: QueuedVisit[],
  redis: Redis,
  keys: RedisKeys,
  options: { mayBeRedelivered?: boolean; onApplied?: VisitBatchHook } = {},
): Promise<number> {
  if (batch.length === 0) return 0;
  const seen = options.mayBeRedelivered
    ? await alreadyStored(batch.map((b) => b.entryId))
    : new Set<string>();
  const described = batch
    .filter(({ entryId }) => !seen.has(entryId))
    .map(({ entryId, visit }) => ({ entryId, visit: describeVisit(visit) }));
  if (described.length === 0) return 0;
  await storeBuckets(described);
  const totals = new Map<string, Map<string, number>>();
  const counts = new Map<string, number>();
  const visitors = new Map<string, Set<string>>();
  for (const { visit } of described) {
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
  const visits = described.map((d) => d.visit);
  await writeRollups(visits, redis, keys);
  await options.onApplied?.(visits);
  return described.length;
}
