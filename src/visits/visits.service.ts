import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { ReadPreference } from '../config';
import { analyticsReadPreference } from '../shared/infra/mongo';
import { clearRemovalMarks, subtractFromAccount } from '../stats/account-rollup';
import { deleteRollups } from '../stats/stats-rollup';
import { VisitBucket, VisitCount, VisitTotal } from './visit.model';
import { visitsOf, type BucketDoc, type BucketVisit } from './visit-bucket-form';
import { uniqueVisitorsKey } from './visit-stream';
import {
  targetKey,
  type Dimension,
  type Statistics,
  type VisitKind,
  type VisitTarget,
} from './visits.types';

const TOP = 10;

async function top(target: string, dim: Dimension): Promise<Record<string, string>> {
  const rows = await VisitCount.find({ target, dim })
    .sort({ count: -1, label: 1 })
    .limit(TOP)
    .read(analyticsReadPreference())
    .lean();
  return Object.fromEntries(rows.map((r) => [r.label, String(r.count)]));
}

/**
 * The statistics object of a link or QR code, read from rollups: a fixed number of indexed
 * reads whatever the number of visits.
 */
export async function getStatistics(
  target: VisitTarget,
  redis: RedisClient,
  keys: RedisKeys,
): Promise<Statistics> {
  const key = targetKey(target);
  const [total, uniques, ...tops] = await Promise.all([
    VisitTotal.findOne({ _id: key }).read(analyticsReadPreference()).lean(),
    redis.pfcount(uniqueVisitorsKey(keys, key)),
    ...(['country', 'referrer', 'browser', 'os'] as const).map((dim) => top(key, dim)),
  ]);
  const [topCountries = {}, topReferrers = {}, topBrowsers = {}, topOs = {}] = tops;
  const clicks = total?.clicks ?? 0;
  return {
    clicks,
    // HyperLogLog is an estimate; never let it claim more visitors than visits.
    uniqueClicks: Math.min(uniques, clicks),
    topCountries,
    topReferrers,
    topBrowsers,
    topOs,
    socialCount: {
      facebook: total?.facebook ?? 0,
      twitter: total?.twitter ?? 0,
      linkedin: total?.linkedin ?? 0,
    },
  };
}

/** Clicks per A/B variant of a link (by the variant's URL), people only. */
export async function getVariantClicks(target: VisitTarget): Promise<Map<string, number>> {
  const rows = await VisitCount.find({ target: targetKey(target), dim: 'variant' }).lean();
  return new Map(rows.map((r) => [r.label, r.count]));
}

/**
 * Click (or scan) totals of several links or QR codes at once, for list pages. From the primary
 * unless told (a click limit is decided on it); exports pass MONGODB_READ_PREFERENCE's.
 */
export async function getClickCounts(
  kind: VisitKind,
  ids: number[],
  readPreference: ReadPreference = 'primary',
): Promise<Map<number, number>> {
  const result = new Map<number, number>(ids.map((id) => [id, 0]));
  if (ids.length === 0) return result;
  const rows = await VisitTotal.find({
    _id: { $in: ids.map((id) => targetKey({ kind, id })) },
  })
    .read(readPreference)
    .lean();
  for (const row of rows) result.set(Number(String(row._id).split(':')[1]), row.clicks ?? 0);
  return result;
}

/**
 * Deletes the visits and rollups of a link or QR code. Given its owner, its clicks are first taken
 * out of the owner's account rollup (which `/api/stats` reads), so the account stays the sum of
 * what it still has.
 */
export async function deleteVisits(
  target: VisitTarget & { userId?: number },
  redis: RedisClient,
  keys: RedisKeys,
): Promise<void> {
  const key = targetKey(target);
  if (target.userId !== undefined) await subtractFromAccount(key, target.userId);
  await Promise.all([
    VisitBucket.deleteMany({ kind: target.kind, targetId: target.id }),
    VisitTotal.deleteOne({ _id: key }),
    VisitCount.deleteMany({ target: key }),
    redis.del(uniqueVisitorsKey(keys, key)),
    deleteRollups(key, redis, keys),
  ]);
  if (target.userId !== undefined) await clearRemovalMarks(key, target.userId);
}

/** The stored visits of a link or QR code, oldest first (bots included, flagged). */
export async function listVisits(target: VisitTarget): Promise<BucketVisit[]> {
  const buckets = await VisitBucket.find({ kind: target.kind, targetId: target.id })
    .sort({ from: 1 })
    .lean<BucketDoc[]>();
  return buckets.flatMap(visitsOf).sort((a, b) => a.at.getTime() - b.at.getTime());
}
