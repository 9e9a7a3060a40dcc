import type { RedisClient } from '../shared/infra/redis-connections';
import { analyticsReadPreference } from '../shared/infra/mongo';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { Dimension } from '../visits/visits.types';
import { dailySketchKey, hourOf } from './stats-rollup';
import { VisitHour, VisitHourLabel } from './stats.model';
import { bucketIndex, type BucketRange } from './time-buckets';

const TOP = 10;

export interface SeriesPoint {
  start: number;
  clicks: number;
  uniqueClicks: number;
}

export interface Series {
  range: BucketRange;
  points: SeriesPoint[];
  totals: { clicks: number; uniqueClicks: number };
  top?: Record<string, string>;
}

interface HourSum {
  _id: Date;
  clicks: number;
  uniques: number;
}

const DAY_MS = 86_400_000;

/** The UTC day a sketch describes, from its name (`target|YYYY-MM-DD`). */
function sketchDay(sketch: string): number {
  return Date.parse(`${sketch.slice(sketch.lastIndexOf('|') + 1)}T00:00:00Z`);
}

function hourFilter(targets: string[], range: BucketRange) {
  return {
    // One target (a link, a code, an account's rollup) by equality: `$in` only for several.
    target: targets.length === 1 ? targets[0] : { $in: targets },
    hour: { $gte: hourOf(range.from.getTime()), $lt: range.to },
  };
}

/** Counts the union of sketches, never more than the clicks they describe. */
async function pfcounts(
  groups: string[][],
  clicks: number[],
  redis: RedisClient,
  keys: RedisKeys,
): Promise<number[]> {
  const pipeline = redis.pipeline();
  const asked = groups.map((g) => g.length > 0);
  groups.forEach((g) => {
    if (g.length) pipeline.pfcount(...g.map((s) => dailySketchKey(keys, s)));
  });
  // Sketches live in Redis; without it uniques come out as 0 while clicks stay exact.
  const replies = asked.some(Boolean) ? ((await pipeline.exec().catch(() => null)) ?? []) : [];
  let next = 0;
  return groups.map((_, i) => {
    if (!asked[i]) return 0;
    const [err, n] = replies[next++] ?? [null, 0];
    return err ? 0 : Math.min(Number(n), clicks[i] ?? 0);
  });
}

/**
 * Unique visitors per bucket. Hour buckets use each hour's own count. Longer buckets count the
 * union of the daily sketches (one per target and UTC day) that overlap the bucket; in a zone
 * whose days are not UTC days a sketch spans two local days, so a visitor of the neighbouring
 * day may be counted too (never beyond the bucket's clicks).
 */
async function uniquesPerBucket(
  targets: string[],
  range: BucketRange,
  points: SeriesPoint[],
  hourUniques: number[],
  redis: RedisClient,
  keys: RedisKeys,
): Promise<{ perBucket: number[]; total: number }> {
  const sketches = await VisitHour.aggregate<{ _id: string }>([
    { $match: { ...hourFilter(targets, range), clicks: { $gt: 0 } } },
    { $group: { _id: '$sketch' } },
  ]).read(analyticsReadPreference());
  const all = sketches.map((s) => s._id);
  const totalClicks = points.reduce((sum, p) => sum + p.clicks, 0);
  if (range.interval === 'hour') {
    const [total = 0] = await pfcounts([all], [totalClicks], redis, keys);
    return { perBucket: hourUniques, total };
  }
  const groups: string[][] = points.map(() => []);
  for (const sketch of all) {
    // Every bucket this UTC day overlaps.
    const day = sketchDay(sketch);
    const first = Math.max(bucketIndex(range.starts, day), 0);
    const last = bucketIndex(range.starts, day + DAY_MS - 1);
    for (let i = first; i <= last; i += 1) groups[i]?.push(sketch);
  }
  const counts = await pfcounts(
    [...groups, all],
    [...points.map((p) => p.clicks), totalClicks],
    redis,
    keys,
  );
  return { perBucket: counts.slice(0, points.length), total: counts[points.length] ?? 0 };
}

/** The most frequent labels of a dimension within the range, as the statistics maps show them. */
async function topLabels(
  targets: string[],
  range: BucketRange,
  dim: Dimension,
): Promise<Record<string, string>> {
  const rows = await VisitHourLabel.aggregate<{ _id: string; count: number }>([
    { $match: { ...hourFilter(targets, range), dim } },
    { $group: { _id: '$label', count: { $sum: '$count' } } },
    { $sort: { count: -1, _id: 1 } },
    { $limit: TOP },
  ]).read(analyticsReadPreference());
  return Object.fromEntries(rows.map((r) => [r._id, String(r.count)]));
}

/**
 * The click series of some links and QR codes (`kind:id` targets), read from the hourly
 * rollups: at most one grouped row per hour of the range, whatever the number of clicks.
 */
export async function getSeries(
  targets: string[],
  range: BucketRange,
  by: Dimension | undefined,
  redis: RedisClient,
  keys: RedisKeys,
): Promise<Series> {
  const points: SeriesPoint[] = range.starts.map((start) => ({
    start,
    clicks: 0,
    uniqueClicks: 0,
  }));
  const hourUniques = points.map(() => 0);
  if (targets.length === 0) {
    return { range, points, totals: { clicks: 0, uniqueClicks: 0 }, top: by ? {} : undefined };
  }
  const [hours, top] = await Promise.all([
    VisitHour.aggregate<HourSum>([
      { $match: hourFilter(targets, range) },
      { $group: { _id: '$hour', clicks: { $sum: '$clicks' }, uniques: { $sum: '$uniques' } } },
    ]).read(analyticsReadPreference()),
    by ? topLabels(targets, range, by) : Promise.resolve(undefined),
  ]);
  for (const hour of hours) {
    const i = bucketIndex(range.starts, hour._id.getTime());
    const point = points[i];
    if (!point) continue;
    point.clicks += hour.clicks;
    hourUniques[i] = (hourUniques[i] ?? 0) + hour.uniques;
  }
  const uniques = await uniquesPerBucket(targets, range, points, hourUniques, redis, keys);
  points.forEach((p, i) => (p.uniqueClicks = Math.min(uniques.perBucket[i] ?? 0, p.clicks)));
  const clicks = points.reduce((sum, p) => sum + p.clicks, 0);
  return { range, points, totals: { clicks, uniqueClicks: uniques.total }, top };
}
