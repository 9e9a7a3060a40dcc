import { randomBytes } from 'node:crypto';
import mongoose, { type mongo } from 'mongoose';
import type { RedisClient } from '../shared/infra/redis-connections';
import { isOnlyDuplicateKeys } from '../shared/db/duplicate-key';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { insertFreshBuckets, storedBucketsOf } from './visit-buckets';
import {
  clickCountOf,
  columnsOf,
  toBuckets,
  type BatchId,
  type BucketDoc,
} from './visit-bucket-form';
import { attachOwners } from './visit-owners';
import { copyClickTotalsToLinks } from '../stats/link-clicks';
import { writeHourlyUniques } from '../stats/stats-rollup';
import { ROLLUPS, type RollupIncrement } from './visit-rollups';
import { uniqueVisitorsKey } from './visit-stream';
import { targetKey, type CapturedVisit } from './visits.types';

export interface QueuedVisit {
  /** Unique per visit (the stream entry id); makes storing a redelivered visit a no-op. */
  entryId: string;
  visit: CapturedVisit;
}

/** Where a test may stop the apply step, as a crash would (see test/reliability/drainer). */
export interface ApplyFaults {
  /** After the batch's new buckets are stored; `entryIds` are the batch's. */
  afterStore?(entryIds: readonly string[]): void | Promise<void>;
  /** Before one rollup collection is written; the others may already be. */
  beforeRollup?(collection: string): void | Promise<void>;
  afterCount?(): void | Promise<void>;
}

/**
 * Numbers the batches of one applier and runs them one at a time. The rollup guard needs a
 * batch of an applier to be counted whole before its next one starts; after a failure the
 * half-counted batch is left to a replay, so the applier takes a new identity.
 */
export class BatchClock {
  private applier = BatchClock.newIdentity();
  private seq = 0;
  private tail: Promise<unknown> = Promise.resolve();

  private static newIdentity(): string {
    return `a${randomBytes(6).toString('hex')}`;
  }

  run<T>(step: (batch: BatchId) => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      this.seq += 1;
      try {
        return await step({ applier: this.applier, seq: this.seq });
      } catch (err) {
        this.applier = BatchClock.newIdentity();
        this.seq = 0;
        throw err;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
}

const processClock = new BatchClock();

/**
 * One upsert per counter document that adds `inc` unless this batch was already counted into it:
 * `g.<applier>` holds the applier's last counted batch. A document that already has it does not
 * match, and the upsert's insert then fails on the unique key.
 */
function guardedUpdate(
  write: RollupIncrement,
  batch: BatchId,
  upsert: boolean,
): mongo.AnyBulkWriteOperation {
  const mark = `g.${batch.applier}`;
  return {
    updateOne: {
      filter: { ...write.filter, [mark]: { $not: { $gte: batch.seq } } },
      update: { $inc: write.inc, $set: { [mark]: batch.seq } },
      upsert,
    },
  };
}

/** The indexes (in `ops`) of the writes that failed on a duplicate key; throws any other error. */
function duplicateKeyIndexes(err: unknown): number[] {
  if (!isOnlyDuplicateKeys(err)) throw err;
  const e = err as { writeErrors?: unknown };
  const writeErrors = [e.writeErrors ?? []].flat() as Array<{ index?: unknown }>;
  return writeErrors.flatMap((w) => (typeof w.index === 'number' ? [w.index] : []));
}

/**
 * Writes one collection's guarded upserts. An E11000 does not mean "already counted": two
 * appliers creating the same new counter document at once race on its insert, and the loser's
 * upsert fails with E11000 although it never counted (MongoDB retries that race itself only for
 * equality-only filters on the unique key, which the guard is not). The document exists by then,
 * so each such write is tried again as a plain guarded update: it adds `inc` unless the batch was
 * counted, and a write that matches nothing is the real "already counted".
 */
export async function writeGuarded(
  collection: mongo.Collection,
  writes: readonly RollupIncrement[],
  batch: BatchId,
): Promise<void> {
  let failed: number[];
  try {
    await collection.bulkWrite(
      writes.map((w) => guardedUpdate(w, batch, true)),
      { ordered: false },
    );
    return;
  } catch (err) {
    failed = duplicateKeyIndexes(err);
  }
  // An error that does not say which writes failed: every write again, the guard keeps it exact.
  if (failed.length === 0) failed = writes.map((_, i) => i);
  await collection.bulkWrite(
    failed.map((i) => guardedUpdate(writes[i] as RollupIncrement, batch, false)),
    { ordered: false },
  );
}

/** Counts the buckets of one batch: one bulkWrite per rollup collection, all at once. */
async function countBuckets(
  buckets: BucketDoc[],
  batch: BatchId,
  faults: ApplyFaults | undefined,
): Promise<void> {
  const byCollection = new Map<string, RollupIncrement[]>();
  for (const contributor of ROLLUPS) {
    for (const write of contributor(buckets)) {
      if (Object.keys(write.inc).length === 0) continue;
      const writes = byCollection.get(write.collection) ?? [];
      writes.push(write);
      byCollection.set(write.collection, writes);
    }
  }
  const db = mongoose.connection.db;
  if (!db) throw new Error('MongoDB is not connected');
  const results = await Promise.allSettled(
    [...byCollection].map(async ([collection, writes]) => {
      await faults?.beforeRollup?.(collection);
      await writeGuarded(db.collection(collection), writes, batch);
    }),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function addUniques(
  buckets: BucketDoc[],
  redis: RedisClient,
  keys: RedisKeys,
): Promise<void> {
  const adds: Array<Promise<unknown>> = [];
  for (const bucket of buckets) {
    // Each visitor once: a bucket holds the same few visitors' clicks many times over.
    const { visitor, label, labels } = columnsOf(bucket);
    const people = new Set<string>();
    for (let i = 0; i < visitor.length; i += 1) {
      if (!labels[label[i] as number]?.bot) people.add(visitor[i] as string);
    }
    if (people.size === 0) continue;
    const target = targetKey({ kind: bucket.kind, id: bucket.targetId });
    // One command each, not one pipeline: on a cluster the targets' keys live on several nodes.
    adds.push(redis.pfadd(uniqueVisitorsKey(keys, target), ...people).catch(() => undefined));
  }
  // PFADD is idempotent. Uniques live in Redis; when it is down they may come out low.
  await Promise.all(adds);
}

export interface ApplyOptions {
  /** Entries that may have been delivered before (claimed, or re-read after a failure). */
  mayBeRedelivered?: boolean;
  clock?: BatchClock;
  faults?: ApplyFaults;
  onApplied?: VisitBatchHook;
}

/** Told of every newly stored batch (the `clicks` webhook); must not throw. */
export type VisitBatchHook = (buckets: readonly BucketDoc[]) => Promise<void>;

/**
 * Stores a batch of visits and counts it, as one idempotent step: raw visits as one bucket per
 * target, then the rollups, each counter document guarded by the batch that counts into it. A
 * replay after a crash at any point finds the stored buckets and counts each into exactly the
 * documents that have not seen it yet: nothing is lost, nothing counted twice. A click is stored
 * under its id (`entryId`) once, by whichever copy of it comes first (`insertFreshBuckets`): only
 * what this batch stored is counted by it.
 */
export async function applyVisits(
  batch: QueuedVisit[],
  redis: RedisClient,
  keys: RedisKeys,
  options: ApplyOptions = {},
): Promise<number> {
  if (batch.length === 0) return 0;
  const { faults } = options;
  return (options.clock ?? processClock).run(async (batchId) => {
    const earlier = options.mayBeRedelivered
      ? await storedBucketsOf({
          targetIds: batch.map((b) => b.visit.targetId),
          entryIds: batch.map((b) => b.entryId),
        })
      : [];
    // Stored already, or twice in this batch (a click and its re-sent copy): once.
    const seen = new Set(earlier.flatMap((b) => b.entryIds));
    const once = batch.filter(({ entryId }) => {
      if (seen.has(entryId)) return false;
      seen.add(entryId);
      return true;
    });
    const candidates = toBuckets(once, batchId);
    // Before storing: a bucket counts into the account it was stored with, replayed or not.
    await attachOwners(candidates);
    const fresh = await insertFreshBuckets(candidates, batchId);
    await faults?.afterStore?.(batch.map((b) => b.entryId));
    // A replayed bucket is counted under the batch that stored it, oldest first.
    const replays = earlier
      .filter((b) => b.batch !== undefined)
      .sort((a, b) => a.batch.seq - b.batch.seq);
    for (const bucket of replays) await countBuckets([bucket], bucket.batch, faults);
    if (fresh.length) await countBuckets(fresh, batchId, faults);
    await copyClickTotalsToLinks([...replays, ...fresh]);
    await faults?.afterCount?.();
    await addUniques([...replays, ...fresh], redis, keys);
    await writeHourlyUniques([...replays, ...fresh], redis, keys);
    if (fresh.length) await options.onApplied?.(fresh);
    return fresh.reduce((n, b) => n + clickCountOf(b), 0);
  });
}
