import { Schema, model } from 'mongoose';

const counterSchema = new Schema(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  {
    versionKey: false,
    collection: 'counters',
  },
);

export const Counter = model('Counter', counterSchema);

/** Allocates the next integer id of a resource type; one atomic `$inc`, so concurrent creates never share one. */
export async function nextId(resource: string, attempt = 0): Promise<number> {
  let doc;
  try {
    doc = await Counter.findOneAndUpdate(
      { _id: resource },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after', lean: true },
    );
  } catch (err) {
    // Two first-ever upserts of one counter can race on _id; the loser simply increments again.
    if ((err as { code?: unknown }).code === 11000 && attempt < 3)
      return nextId(resource, attempt + 1);
    throw err;
  }
  if (!doc) throw new Error(`counter ${resource} was not allocated`);
  return doc.seq;
}
