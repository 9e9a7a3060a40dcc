import type { AnyBulkWriteOperation } from 'mongoose';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { columnsOf, type BucketDoc } from '../visits/visit-bucket-form';
import type { RollupContributor, RollupIncrement } from '../visits/visit-rollups';
import { targetKey, type ClickLabels, type Dimension } from '../visits/visits.types';
import { VisitHour, VisitHourLabel, type VisitHourRecord } from './stats.model';

const HOUR_MS = 3_600_000;
/** A visitor seen in an hour is remembered this long, so later batches of that hour do not recount them. */
const HOUR_SET_TTL_S = 48 * 3600;

export function hourOf(at: number): Date {
  return new Date(Math.floor(at / HOUR_MS) * HOUR_MS);
}

/** `target|YYYY-MM-DD`: names the unique-visitor sketch of one target and UTC day. */
export function sketchName(target: string, at: number | Date): string {
  return `${target}|${new Date(at).toISOString().slice(0, 10)}`;
}

/** In one slot: statistics count the union of several days' and targets' sketches (PFCOUNT). */
export function dailySketchKey(keys: RedisKeys, sketch: string): string {
  return keys.slotted('visits:day', sketch);
}

function hourSetKey(keys: RedisKeys, id: string): string {
  return keys.key('visits', 'hourset', id);
}

/** Groups a sum per key, keeping the first description seen. */
function summed<T>(
  entries: Array<[string, T, string, number]>,
): Map<string, [T, Record<string, number>]> {
  const out = new Map<string, [T, Record<string, number>]>();
  for (const [key, value, field, n] of entries) {
    const entry: [T, Record<string, number>] = out.get(key) ?? [value, {}];
    entry[1][field] = (entry[1][field] ?? 0) + n;
    out.set(key, entry);
  }
  return out;
}

/** Clicks of a bucket in one UTC hour with one set of labels, counted. */
export interface ClickGroup {
  hourMs: number;
  labels: ClickLabels;
  n: number;
}

const groupsMemo = new WeakMap<BucketDoc, ClickGroup[]>();

/**
 * A bucket's clicks by UTC hour and set of labels: every rollup (the target's, its account's,
 * totals and labels) counts these groups, so each click is looked at once per bucket, and only
 * for its time and the index of its labels. A bucket is never changed once built (a bucket less
 * some clicks is a new object).
 */
export function clickGroupsOf(bucket: BucketDoc): ClickGroup[] {
  let groups = groupsMemo.get(bucket);
  if (groups) return groups;
  const { at, label, labels } = columnsOf(bucket);
  const sets = Math.max(labels.length, 1);
  const byKey = new Map<number, ClickGroup>();
  for (let i = 0; i < at.length; i += 1) {
    const hour = Math.floor((at[i] as number) / HOUR_MS);
    const set = label[i] as number;
    const key = hour * sets + set;
    const group = byKey.get(key);
    if (group) group.n += 1;
    else byKey.set(key, { hourMs: hour * HOUR_MS, labels: labels[set] as ClickLabels, n: 1 });
  }
  groups = [...byKey.values()];
  groupsMemo.set(bucket, groups);
  return groups;
}

export function labelsOf(labels: ClickLabels): Array<[Dimension, string]> {
  const out: Array<[Dimension, string]> = [
    ['country', labels.country],
    ['referrer', labels.referrer],
    ['browser', labels.browser],
    ['os', labels.os],
  ];
  if (labels.variant) out.push(['variant', labels.variant]);
  return out;
}

/** Which rollup document a bucket counts into: its own target's, or its owner's account's. */
export type BucketTarget = (bucket: BucketDoc) => string | undefined;

/** A bucket's own target (`link:<id>`, `qr:<id>`). */
export const ownTarget: BucketTarget = (bucket) =>
  targetKey({ kind: bucket.kind, id: bucket.targetId });

/**
 * The account rollup's target of a bucket: `user:<id>` of the link's or code's owner, stored on
 * the bucket by the apply step (a bucket without an owner, its link deleted before it was
 * stored, counts into no account).
 */
export const accountTarget = (userId: number) => `user:${userId}`;
export const ownerTarget: BucketTarget = (bucket) =>
  bucket.userId === undefined ? undefined : accountTarget(bucket.userId);

/**
 * Clicks and bots per target and UTC hour (the time series), counted by the apply step with the
 * other rollups. The filter names the hour's sketch, so an inserted document carries it.
 */
export const hoursRollupOf =
  (targetOf: BucketTarget): RollupContributor =>
  (buckets) => {
    const collection = VisitHour.collection.collectionName;
    const entries: Array<[string, Record<string, unknown>, string, number]> = [];
    for (const bucket of buckets) {
      const target = targetOf(bucket);
      if (target === undefined) continue;
      for (const { hourMs, labels, n } of clickGroupsOf(bucket)) {
        const hour = new Date(hourMs);
        const filter = { target, hour, sketch: sketchName(target, hour) };
        const field = labels.bot ? 'bots' : 'clicks';
        entries.push([`${target}|${hourMs}`, filter, field, n]);
      }
    }
    return [...summed(entries).values()].map(([filter, inc]): RollupIncrement => ({
      collection,
      filter,
      inc,
    }));
  };

/** Clicks per label (country, referrer, browser, OS) of each target and UTC hour; bots left out. */
export const hourLabelsRollupOf =
  (targetOf: BucketTarget): RollupContributor =>
  (buckets) => {
    const collection = VisitHourLabel.collection.collectionName;
    const entries: Array<[string, Record<string, unknown>, string, number]> = [];
    for (const bucket of buckets) {
      const target = targetOf(bucket);
      if (target === undefined) continue;
      for (const { hourMs, labels, n } of clickGroupsOf(bucket)) {
        if (labels.bot) continue;
        const hour = new Date(hourMs);
        for (const [dim, label] of labelsOf(labels)) {
          const key = JSON.stringify([target, hourMs, dim, label]);
          entries.push([key, { target, hour, dim, label }, 'count', n]);
        }
      }
    }
    return [...summed(entries).values()].map(([filter, inc]) => ({ collection, filter, inc }));
  };

export const hourlyRollup = hoursRollupOf(ownTarget);
export const hourlyLabelsRollup = hourLabelsRollupOf(ownTarget);
/**
 * The account rollup: the same hourly documents under `user:<id>`, counted in the same guarded
 * write as the links' own (same collections, same batch), so a replay counts it once too.
 * `/api/stats` reads it instead of naming every link of the account.
 */
export const accountHourlyRollup = hoursRollupOf(ownerTarget);
export const accountHourlyLabelsRollup = hourLabelsRollupOf(ownerTarget);

/**
 * Adds the batches' visitors to each hour's set and each day's sketch, then counts into the hour
 * the visitors it had not seen yet. Redis remembers who was seen, so a replayed batch adds
 * nothing twice. With Redis down uniques come out low; clicks stay exact.
 */
export async function writeHourlyUniques(
  buckets: readonly BucketDoc[],
  redis: RedisClient,
  keys: RedisKeys,
): Promise<void> {
  const hours = new Map<string, { target: string; hour: Date; visitors: Set<string> }>();
  for (const bucket of buckets) {
    const byHour = new Map<number, Set<string>>();
    const { at, visitor, label, labels } = columnsOf(bucket);
    for (let i = 0; i < at.length; i += 1) {
      if ((labels[label[i] as number] as ClickLabels).bot) continue;
      const hourMs = Math.floor((at[i] as number) / HOUR_MS) * HOUR_MS;
      const visitors = byHour.get(hourMs);
      if (visitors) visitors.add(visitor[i] as string);
      else byHour.set(hourMs, new Set([visitor[i] as string]));
    }
    const targets = [ownTarget(bucket), ownerTarget(bucket)];
    for (const target of targets) {
      if (target === undefined) continue;
      for (const [hourMs, visitors] of byHour) {
        const hour = new Date(hourMs);
        const id = `${target}|${hour.toISOString()}`;
        const entry = hours.get(id);
        if (entry) for (const v of visitors) entry.visitors.add(v);
        else hours.set(id, { target, hour, visitors: new Set(visitors) });
      }
    }
  }
  if (hours.size === 0) return;
  // One command each, not one pipeline: on a cluster these keys live on different nodes.
  const added = await Promise.all(
    [...hours].map(([id, h]) =>
      Promise.all([
        redis.sadd(hourSetKey(keys, id), ...h.visitors),
        redis.expire(hourSetKey(keys, id), HOUR_SET_TTL_S),
        redis.pfadd(dailySketchKey(keys, sketchName(h.target, h.hour)), ...h.visitors),
      ]).then(
        ([n]) => n,
        () => 0,
      ),
    ),
  );
  const ops: Array<AnyBulkWriteOperation<VisitHourRecord>> = [];
  [...hours.values()].forEach((h, i) => {
    if (Number(added[i] ?? 0) > 0)
      ops.push({
        updateOne: {
          filter: { target: h.target, hour: h.hour },
          update: { $inc: { uniques: Number(added[i]) } },
        },
      });
  });
  if (ops.length) await VisitHour.bulkWrite(ops, { ordered: false });
}

/** Removes the rollups and sketches of a deleted link or QR code. */
export async function deleteRollups(
  target: string,
  redis: RedisClient,
  keys: RedisKeys,
): Promise<void> {
  const hours = await VisitHour.find({ target }).lean();
  const sketches = new Set(hours.map((h) => dailySketchKey(keys, h.sketch)));
  await Promise.all([VisitHour.deleteMany({ target }), VisitHourLabel.deleteMany({ target })]);
  if (sketches.size) await redis.del(...sketches);
}
