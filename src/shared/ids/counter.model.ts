import mongoose, { Schema, model } from 'mongoose';
import { isDuplicateKeyError } from '../db/duplicate-key';

const counterSchema = new Schema(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  { versionKey: false, collection: 'counters' },
);

export const Counter = model('Counter', counterSchema);

interface CounterDoc {
  _id: string;
  seq: number;
}

/** The driver's view of the collection, typed with its string ids. */
const counters = () =>
  mongoose.connection.collection<CounterDoc>(Counter.collection.collectionName);

/** Adds `count` to a resource's counter; answers the last id of the `count` it reserved. */
async function increment(resource: string, count: number, attempt = 0): Promise<number> {
  try {
    // With the driver: every create pays for this, and mongoose's casting doubled its cost.
    const doc = await counters().findOneAndUpdate(
      { _id: resource },
      { $inc: { seq: count } },
      { upsert: true, returnDocument: 'after' },
    );
    if (!doc) throw new Error(`counter ${resource} was not allocated`);
    return doc.seq;
  } catch (err) {
    // Two first-ever upserts of one counter can race on _id; the loser simply increments again.
    if (isDuplicateKeyError(err) && attempt < 3) return increment(resource, count, attempt + 1);
    throw err;
  }
}

interface Waiter {
  resolve(id: number): void;
  reject(err: unknown): void;
}

/** Callers waiting for an id, per resource, while an allocation is in flight. */
const waiting = new Map<string, Waiter[]>();

async function allocate(resource: string, queue: Waiter[]): Promise<void> {
  while (queue.length > 0) {
    const batch = queue.splice(0);
    try {
      const last = await increment(resource, batch.length);
      batch.forEach((waiter, i) => waiter.resolve(last - batch.length + 1 + i));
    } catch (err) {
      for (const waiter of batch) waiter.reject(err);
    }
  }
  waiting.delete(resource);
}

/**
 * Allocates the next integer id of a resource type. One allocation of a counter is in flight per
 * process at a time, and the callers that arrive meanwhile share the next one: a single `$inc` by
 * their number reserves consecutive ids for all of them, handed out in arrival order. On MongoDB
 * the `$inc` is atomic; the embedded engine applies concurrent increments correctly but may
 * return the same value to two callers (docs/mongodb-compatibility.md), which one allocation in
 * flight per process also avoids. Every resource's `id` has a unique index as the last guard.
 */
export function nextId(resource: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let queue = waiting.get(resource);
    const idle = !queue;
    if (!queue) waiting.set(resource, (queue = []));
    queue.push({ resolve, reject });
    if (idle) void allocate(resource, queue);
  });
}
