import type { Model } from 'mongoose';
import { notFound } from '../errors/app-error';
import { skipFor, type PageQuery } from '../http/pagination';

/** Every user-owned resource document carries these two integers. */
export interface Owned {
  id: number;
  userId: number;
}

/**
 * One page of a user's records, newest (highest id) first, with the total for the envelope.
 * `after` (an id) lists the records after that one instead of skipping `page`s: deep listing
 * at the cost of one index seek.
 */
export async function listOwned<T extends Owned>(
  model: Model<T>,
  userId: number,
  query: PageQuery,
  extraFilter: Record<string, unknown> = {},
  after = query.after,
): Promise<{ items: T[]; total: number }> {
  const filter = { ...extraFilter, userId };
  const page = after === undefined ? filter : { ...filter, id: { $lt: after } };
  const skip = after === undefined ? skipFor(query) : 0;
  const [total, items] = await Promise.all([
    model.countDocuments(filter),
    model.find(page).sort({ id: -1 }).skip(skip).limit(query.limit).lean<T[]>(),
  ]);
  return { items, total };
}

/** The caller's record with that id; another user's record is reported exactly like a missing one. */
export async function findOwned<T extends Owned>(
  model: Model<T>,
  userId: number,
  id: number,
  label: string,
): Promise<T> {
  const doc = await model.findOne({ id, userId }).lean<T>();
  if (!doc) throw notFound(`${label} not found`);
  return doc;
}

export async function deleteOwned<T extends Owned>(
  model: Model<T>,
  userId: number,
  id: number,
  label: string,
): Promise<void> {
  const result = await model.deleteOne({ id, userId });
  if (result.deletedCount === 0) throw notFound(`${label} not found`);
}
