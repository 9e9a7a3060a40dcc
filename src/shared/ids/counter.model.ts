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

async function increment(resource: string, attempt = 0): Promise<number> {
  try {
    // With the driver: every create pays for this, and mongoose's casting doubled its cost.
    const doc = await counters().findOneAndUpdate(
      { _id: resource },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    if (!doc) throw new Error(`counter ${resource} was not allocated`);
    return doc.seq;
  } catch (err) {
    // Two first-ever upserts of one counter can race on _id; the loser simply increments again.
    if (isDuplicateKeyError(err) && attempt < 3) return increment(resource, attempt + 1);
    throw err;
  }
}

const pending = new Map<string, Promise<number>>();

/**
 * Allocates the next integer id of a resource type with one `$inc`. On MongoDB that is atomic
 * by itself; the embedded engine applies concurrent increments correctly but may return the
 * same value to two callers (docs/mongodb-compatibility.md), so allocations of one counter are
 * also queued within the process. Every resource's `id` has a unique index as the last guard.
 */
export function nextId(resource: string): Promise<number> {
  const previous = pending.get(resource) ?? Promise.resolve(0);
  const next = previous.catch(() => 0).then(() => increment(resource));
  pending.set(resource, next);
  void next
    .finally(() => {
      if (pending.get(resource) === next) pending.delete(resource);
    })
    .catch(() => undefined);
  return next;
}
