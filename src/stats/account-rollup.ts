import mongoose, { type mongo } from 'mongoose';
import { Link } from '../links/link.model';
import { QrCode } from '../qr-codes/qr-code.model';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { User } from '../users/user.model';
import { writeGuarded } from '../visits/visit-apply';
import { Setting } from '../visits/visit.model';
import type { RollupIncrement } from '../visits/visit-rollups';
import { targetKey } from '../visits/visits.types';
import { accountTarget, dailySketchKey, sketchName } from './stats-rollup';
import { VisitHour, VisitHourLabel } from './stats.model';

export { accountTarget };

function collectionOf(name: string): mongo.Collection {
  const db = mongoose.connection.db;
  if (!db) throw new Error('MongoDB is not connected');
  return db.collection(name);
}

/** The guard field a deleted target's subtraction leaves on the account documents it changed. */
const removalMark = (target: string) => `g.rm_${target.replace(/[^a-z0-9]/gi, '_')}`;

/**
 * Takes a deleted link's or code's clicks out of its owner's account rollup, so the account's
 * series stays the sum of the links and codes it still has. Each account document is changed
 * once (a guard field per removed target, the same guard the drain uses, cleared again by
 * `clearRemovalMarks` once the target's own rollups are gone): a retry subtracts nothing twice.
 * Never upserts: an account document that is not there has nothing to give back. Unique visitors
 * stay (a sketch cannot forget a visitor); the series caps them at the clicks.
 */
export async function subtractFromAccount(target: string, userId: number): Promise<void> {
  const account = accountTarget(userId);
  const mark = removalMark(target);
  const [hours, labels] = await Promise.all([
    VisitHour.find({ target }).lean(),
    VisitHourLabel.find({ target }).lean(),
  ]);
  const update = (filter: Record<string, unknown>, inc: Record<string, number>) => ({
    updateOne: {
      filter: { ...filter, [mark]: { $exists: false } },
      update: { $inc: inc, $set: { [mark]: 1 } },
    },
  });
  const hourOps = hours
    .filter((h) => (h.clicks ?? 0) > 0 || (h.bots ?? 0) > 0)
    .map((h) =>
      update({ target: account, hour: h.hour }, { clicks: -(h.clicks ?? 0), bots: -(h.bots ?? 0) }),
    );
  const labelOps = labels
    .filter((l) => (l.count ?? 0) > 0)
    .map((l) =>
      update({ target: account, hour: l.hour, dim: l.dim, label: l.label }, { count: -l.count }),
    );
  await Promise.all([
    hourOps.length
      ? collectionOf(VisitHour.collection.collectionName).bulkWrite(hourOps, { ordered: false })
      : undefined,
    labelOps.length
      ? collectionOf(VisitHourLabel.collection.collectionName).bulkWrite(labelOps, {
          ordered: false,
        })
      : undefined,
  ]);
}

/** Clears the guard fields `subtractFromAccount` left, once the target's rollups are deleted. */
export async function clearRemovalMarks(target: string, userId: number): Promise<void> {
  const account = accountTarget(userId);
  const mark = removalMark(target);
  await Promise.all(
    [VisitHour, VisitHourLabel].map((model) =>
      collectionOf(model.collection.collectionName).updateMany(
        { target: account, [mark]: { $exists: true } },
        { $unset: { [mark]: '' } },
      ),
    ),
  );
}

const PAGE = 1000;
const WRITE_CHUNK = 1000;
const BACKFILL_MARK = 'account-rollups';
/** The backfill counts as one batch of its own applier: a rerun after a crash adds nothing twice. */
const BACKFILL_BATCH = { applier: 'backfill', seq: 1 };

/** Every link and QR code target of a user, a page at a time (by the `{userId, id}` indexes). */
async function* targetPages(userId: number): AsyncGenerator<string[]> {
  for (const [kind, model] of [
    ['link', Link],
    ['qr', QrCode],
  ] as const) {
    let after = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const filter = { userId, id: { $lt: after } };
      const page: Array<{ id: number }> =
        model === Link
          ? await Link.find(filter).sort({ id: -1 }).limit(PAGE).lean()
          : await QrCode.find(filter).sort({ id: -1 }).limit(PAGE).lean();
      if (page.length === 0) break;
      yield page.map((d) => targetKey({ kind, id: d.id }));
      after = (page[page.length - 1] as { id: number }).id;
    }
  }
}

/** Sums one account's links' and codes' rollups into its account documents; see below. */
export async function backfillAccount(
  userId: number,
  sketches?: { redis: RedisClient; keys: RedisKeys },
): Promise<boolean> {
  const account = accountTarget(userId);
  const hours = new Map<number, { clicks: number; bots: number; uniques: number }>();
  const labels = new Map<string, RollupIncrement>();
  const days = new Map<string, Set<string>>();
  for await (const targets of targetPages(userId)) {
    // One `$in` of a page of targets: a one-time migration, never a request.
    const [hourDocs, labelDocs] = await Promise.all([
      VisitHour.find({ target: { $in: targets } }).lean(),
      VisitHourLabel.find({ target: { $in: targets } }).lean(),
    ]);
    for (const h of hourDocs) {
      const at = h.hour.getTime();
      const sum = hours.get(at) ?? { clicks: 0, bots: 0, uniques: 0 };
      sum.clicks += h.clicks ?? 0;
      sum.bots += h.bots ?? 0;
      sum.uniques += h.uniques ?? 0;
      hours.set(at, sum);
      const day = sketchName(account, h.hour);
      const from = days.get(day) ?? new Set<string>();
      from.add(h.sketch);
      days.set(day, from);
    }
    for (const l of labelDocs) {
      const key = JSON.stringify([l.hour.getTime(), l.dim, l.label]);
      const entry = labels.get(key) ?? {
        collection: VisitHourLabel.collection.collectionName,
        filter: { target: account, hour: l.hour, dim: l.dim, label: l.label },
        inc: { count: 0 },
      };
      entry.inc.count = (entry.inc.count ?? 0) + (l.count ?? 0);
      labels.set(key, entry);
    }
  }
  if (hours.size === 0) return false;
  const hourWrites: RollupIncrement[] = [...hours].map(([at, inc]) => {
    const hour = new Date(at);
    return {
      collection: VisitHour.collection.collectionName,
      filter: { target: account, hour, sketch: sketchName(account, hour) },
      inc,
    };
  });
  for (const writes of [hourWrites, [...labels.values()]]) {
    for (let i = 0; i < writes.length; i += WRITE_CHUNK) {
      const chunk = writes.slice(i, i + WRITE_CHUNK);
      const name = (chunk[0] as RollupIncrement).collection;
      await writeGuarded(collectionOf(name), chunk, BACKFILL_BATCH);
    }
  }
  if (sketches) {
    // Every daily sketch lives in one slot (dailySketchKey), so PFMERGE works on a cluster too.
    const { redis, keys } = sketches;
    for (const [day, from] of days) {
      // Without Redis the account's uniques of those days come out low; clicks stay exact.
      await redis
        .pfmerge(dailySketchKey(keys, day), ...[...from].map((s) => dailySketchKey(keys, s)))
        .catch(() => undefined);
    }
  }
  return true;
}

/**
 * Builds the account rollups of a database whose clicks were counted before they existed (the
 * migration step): each account's documents are the sums of its links' and codes' hourly
 * rollups, written under one guarded batch of their own, and the account's daily sketches the
 * union of theirs. Runs once (a `settings` marker); run it before workers of this version start
 * draining (`npm start` and docker compose's `migrate` service do): a click that version counts
 * into an account before the backfill would be counted there twice.
 */
export async function backfillAccountRollups(sketches?: {
  redis: RedisClient;
  keys: RedisKeys;
}): Promise<number> {
  if (await Setting.exists({ _id: BACKFILL_MARK })) return 0;
  let accounts = 0;
  let after = 0;
  for (;;) {
    const users = await User.find({ id: { $gt: after } })
      .sort({ id: 1 })
      .limit(100)
      .lean();
    if (users.length === 0) break;
    for (const user of users) if (await backfillAccount(user.id, sketches)) accounts += 1;
    after = (users[users.length - 1] as { id: number }).id;
  }
  await Setting.updateOne(
    { _id: BACKFILL_MARK },
    { $set: { value: new Date().toISOString() } },
    { upsert: true },
  );
  return accounts;
}
