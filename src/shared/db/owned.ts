import type { Model } from 'mongoose';
import { notFound } from '../errors/app-error';
import { skipFor, type PageQuery } from '../http/pagination';

/** Every user-owned resource document carries these two integers. */
export interface Owned {
  id: number;
  userId: number;
}

/** One page of a user's records, newest (highest id) first, with the total for the envelope. */
export async function listOwned<T extends Owned>(
  model: Model<T>,
  userId: number,
  query: PageQuery,
  extraFilter: Record<string, unknown> = {},
): Promise<{ items: T[]; total: number }> {
  const filter = { ...extraFilter, userId };
  const [total, items] = await Promise.all([
    model.countDocuments(filter),
    model.find(filter).sort({ id: -1 }).skip(skipFor(query)).limit(query.limit).lean<T[]>(),
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
