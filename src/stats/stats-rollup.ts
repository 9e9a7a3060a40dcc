import type { AnyBulkWriteOperation } from 'mongoose';
import type { Redis } from 'ioredis';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { targetKey, type DescribedVisit, type Dimension } from '../shared/visits/visits.types';
import { VisitHour, VisitHourLabel, type VisitHourRecord } from './stats.model';

const HOUR_MS = 3_600_000;
/** A visitor seen in an hour is remembered this long, so later batches of that hour do not recount them. */
const HOUR_SET_TTL_S = 48 * 3600;

interface HourRollup {
  target: string;
  hour: Date;
  sketch: string;
  clicks: number;
  bots: number;
  visitors: Set<string>;
}

interface LabelRollup {
  target: string;
  hour: Date;
  dim: Dimension;
  label: string;
  count: number;
}

/** What one batch adds to the hourly rollups, summed per target, hour and label. */
export interface RollupPlan {
  hours: Map<string, HourRollup>;
  labels: Map<string, LabelRollup>;
}

export function hourOf(at: number): Date {
  return new Date(Math.floor(at / HOUR_MS) * HOUR_MS);
}

/** `target|YYYY-MM-DD`: names the unique-visitor sketch of one target and UTC day. */
export function sketchName(target: string, at: number | Date): string {
  return `${target}|${new Date(at).toISOString().slice(0, 10)}`;
}

export function dailySketchKey(keys: RedisKeys, sketch: string): string {
  return keys.key('visits', 'day', sketch);
}

function hourSetKey(keys: RedisKeys, id: string): string {
  return keys.key('visits', 'hourset', id);
}

export function planRollups(visits: DescribedVisit[]): RollupPlan {
  const plan: RollupPlan = { hours: new Map(), labels: new Map() };
  for (const visit of visits) {
    const target = targetKey({ kind: visit.kind, id: visit.targetId });
    const hour = hourOf(visit.at);
    const id = `${target}|${hour.toISOString()}`;
    let rollup = plan.hours.get(id);
    if (!rollup) {
      rollup = {
        target,
        hour,
        sketch: sketchName(target, hour),
        clicks: 0,
        bots: 0,
        visitors: new Set(),
      };
      plan.hours.set(id, rollup);
    }
    if (visit.bot) {
      rollup.bots += 1;
      continue;
    }
    rollup.clicks += 1;
    rollup.visitors.add(visit.visitor);
    const labels: Record<Dimension, string> = {
      country: visit.country,
      referrer: visit.referrerLabel,
      browser: visit.browser,
      os: visit.os,
    };
    for (const [dim, label] of Object.entries(labels) as Array<[Dimension, string]>) {
      const labelId = JSON.stringify([id, dim, label]);
      const entry = plan.labels.get(labelId) ?? { target, hour, dim, label, count: 0 };
      entry.count += 1;
      plan.labels.set(labelId, entry);
    }
  }
  return plan;
}

/**
 * Adds the batch's visitors to each hour's set and each day's sketch; answers, per hour, how many
 * of them that hour had not seen yet. With Redis down the answer is empty: uniques come out low,
 * clicks stay exact.
 */
async function countNewVisitors(
  plan: RollupPlan,
  redis: Redis,
  keys: RedisKeys,
): Promise<Map<string, number>> {
  const counted = [...plan.hours].filter(([, r]) => r.visitors.size > 0);
  if (counted.length === 0) return new Map();
  const pipeline = redis.pipeline();
  for (const [id, rollup] of counted) {
    pipeline.sadd(hourSetKey(keys, id), ...rollup.visitors);
    pipeline.expire(hourSetKey(keys, id), HOUR_SET_TTL_S);
    pipeline.pfadd(dailySketchKey(keys, rollup.sketch), ...rollup.visitors);
  }
  const replies = await pipeline.exec().catch(() => null);
  const added = new Map<string, number>();
  counted.forEach(([id], i) => {
    const [err, n] = replies?.[i * 3] ?? [null, 0];
    added.set(id, err ? 0 : Number(n));
  });
  return added;
}

/** The batch's rollups as bulk write operations: `$inc` upserts, one per target, hour and label. */
export function rollupOperations(plan: RollupPlan, newVisitors: Map<string, number>) {
  const hours: Array<AnyBulkWriteOperation<VisitHourRecord>> = [...plan.hours].map(([id, r]) => ({
    updateOne: {
      filter: { target: r.target, hour: r.hour },
      update: {
        $inc: { clicks: r.clicks, bots: r.bots, uniques: newVisitors.get(id) ?? 0 },
        $setOnInsert: { sketch: r.sketch },
      },
      upsert: true,
    },
  }));
  const labels = [...plan.labels.values()].map((l) => ({
    updateOne: {
      filter: { target: l.target, hour: l.hour, dim: l.dim, label: l.label },
      update: { $inc: { count: l.count } },
      upsert: true,
    },
  }));
  return { hours, labels };
}

/** Keeps the hourly rollups and daily sketches up to date with a batch of drained visits. */
export async function writeRollups(
  visits: DescribedVisit[],
  redis: Redis,
  keys: RedisKeys,
): Promise<void> {
  if (visits.length === 0) return;
  const plan = planRollups(visits);
  const ops = rollupOperations(plan, await countNewVisitors(plan, redis, keys));
  if (ops.hours.length) await VisitHour.bulkWrite(ops.hours, { ordered: false });
  if (ops.labels.length) await VisitHourLabel.bulkWrite(ops.labels, { ordered: false });
}

/** Removes the rollups and sketches of a deleted link or QR code. */
export async function deleteRollups(target: string, redis: Redis, keys: RedisKeys): Promise<void> {
  const hours = await VisitHour.find({ target }).lean();
  const sketches = new Set(hours.map((h) => dailySketchKey(keys, h.sketch)));
  await Promise.all([VisitHour.deleteMany({ target }), VisitHourLabel.deleteMany({ target })]);
  if (sketches.size) await redis.del(...sketches);
}
