import type { Model, Query, Schema } from 'mongoose';
import type { AppDeps } from '../../deps';
import { cacheBusFor } from '../cache/cache-bus';
import { sharedCache, type SharedCache } from '../cache/shared-cache';
import type { PageQuery } from '../http/pagination';
import { listOwned, type Owned } from './owned';

export interface OwnedPage<T> {
  items: T[];
  total: number;
}

/**
 * How many different pages (page and limit) of one list are kept before starting over: clients
 * mostly read the first page. With the 2,000 lists kept below, a process holds at most 16,000
 * pages of at most 100 records each, whatever pages are asked for.
 */
const PAGES_PER_LIST = 8;

/**
 * The pages of one user's list of one resource read by this process. An invalidation drops the
 * whole object from the cache, so a read that began before a write and ends after it stores its
 * page into an object nobody can reach any more.
 */
class ListPages {
  readonly pages = new Map<string, Promise<OwnedPage<Owned>>>();
  /** The pages of `pages` read so far, for a request that cannot wait on a promise. */
  readonly settled = new Map<string, OwnedPage<Owned>>();
}

export type OwnedLists = SharedCache<ListPages>;

const CACHE_NAME = 'owned-lists';

/** Every list cache of this process (one per Redis connection): what a write must reach. */
const caches = new Set<OwnedLists>();

/** Schemas whose every write drops the lists it changes (see `invalidatesOwnedLists`). */
const invalidating = new WeakSet<Schema>();

/**
 * Pages of user-owned lists, for the resources whose list answers are made of nothing but that
 * user's documents of that collection (no counts kept elsewhere, no other collection). Every
 * process that writes those collections must have called this once (the API, the CLI): the
 * hooks publish through the caches registered here, so a process with none would change records
 * without telling the others.
 */
export function ownedListsFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): OwnedLists {
  const cache = sharedCache<ListPages>(cacheBusFor(deps), {
    name: CACHE_NAME,
    max: 2_000,
    ttlMs: 60_000,
  });
  if (!caches.has(cache)) {
    caches.add(cache);
    deps.redis.once('end', () => caches.delete(cache));
  }
  return cache;
}

function listKey(modelName: string, userId: number): string {
  return `${modelName}:${userId}`;
}

const pageKeyOf = (query: PageQuery) => `${query.page}:${query.limit}`;

/** `listOwned`, answered from memory until a write to that user's records of that model. */
export async function listOwnedCached<T extends Owned>(
  lists: OwnedLists,
  model: Model<T>,
  userId: number,
  query: PageQuery,
): Promise<OwnedPage<T>> {
  if (!invalidating.has(model.schema)) {
    throw new Error(`${model.modelName} lists cannot be cached: its writes do not invalidate them`);
  }
  const list = await lists.get(listKey(model.modelName, userId), () =>
    Promise.resolve(new ListPages()),
  );
  // Keyset pages (`after`) are read straight off the index: deep pages are not worth keeping.
  if (!list || query.after !== undefined) return listOwned(model, userId, query);
  const pageKey = pageKeyOf(query);
  let page = list.pages.get(pageKey);
  if (!page) {
    if (list.pages.size >= PAGES_PER_LIST) {
      list.pages.clear();
      list.settled.clear();
    }
    const reading = listOwned(model, userId, query);
    page = reading;
    list.pages.set(pageKey, reading);
    reading.then(
      (read) => {
        if (list.pages.get(pageKey) === reading) list.settled.set(pageKey, read);
      },
      () => {
        if (list.pages.get(pageKey) === reading) list.pages.delete(pageKey);
      },
    );
  }
  // The key names the model, so the page holds that model's records; callers only read them.
  return page as Promise<OwnedPage<T>>;
}

/**
 * The page `listOwnedCached` answers for `query`, when this process has read it already; counts
 * no cache lookup (the caller counts the hit when it answers from it).
 */
export function peekOwnedPage<T extends Owned>(
  lists: OwnedLists,
  model: Model<T>,
  userId: number,
  query: PageQuery,
): OwnedPage<T> | undefined {
  if (query.after !== undefined) return undefined;
  const page = lists.peek(listKey(model.modelName, userId))?.settled.get(pageKeyOf(query));
  // As in `listOwnedCached`: the key names the model.
  return page as OwnedPage<T> | undefined;
}

type Users = readonly number[] | 'all';

async function drop(modelName: string, users: Users): Promise<void> {
  await Promise.all(
    [...caches].map((cache) =>
      users === 'all'
        ? cache.invalidateAll()
        : cache.invalidate(users.map((userId) => listKey(modelName, userId))),
    ),
  );
}

/** Whether an update (operators, a replacement or a pipeline) may move a record to another user. */
function movesOwner(update: unknown): boolean {
  if (update === null || typeof update !== 'object') return false;
  if (Array.isArray(update)) return true;
  return Object.entries(update).some(
    ([key, value]) =>
      key === 'userId' ||
      (key.startsWith('$') && value !== null && typeof value === 'object' && 'userId' in value),
  );
}

/** The one user whose records a query wrote, or 'all' when the filter does not say. */
function usersOf(query: Query<unknown, unknown>): Users {
  const userId: unknown = query.getFilter().userId;
  if (typeof userId !== 'number' || movesOwner(query.getUpdate())) return 'all';
  return [userId];
}

function userOfDoc(doc: unknown): Users {
  const userId: unknown = (doc as { userId?: unknown } | null)?.userId;
  return typeof userId === 'number' ? [userId] : 'all';
}

function usersOfDocs(docs: unknown): Users {
  if (!Array.isArray(docs)) return 'all';
  const users = new Set<number>();
  for (const doc of docs) {
    const one = userOfDoc(doc);
    if (one === 'all') return 'all';
    for (const userId of one) users.add(userId);
  }
  return [...users];
}

type Hook = (this: unknown, result: unknown) => Promise<void>;

/** Mongoose's typings miss some of these hooks (bulkWrite's post): one plain signature for all. */
interface Hooks {
  post(names: string | string[], options: { document: boolean; query: boolean }, fn: Hook): void;
  post(names: string, fn: Hook): void;
}

const QUERY_WRITES = [
  'updateOne',
  'updateMany',
  'replaceOne',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findOneAndDelete',
  'deleteOne',
  'deleteMany',
];

/**
 * Mongoose plugin: every write through the model (documents, queries, insertMany, bulkWrite) drops
 * the cached lists it may change, in every process, before the write's promise resolves; a write
 * whose filter names no single user drops every list. Writes through the raw driver would bypass
 * this: there are none on these collections. A write that fails part-way (a deleteMany cut off)
 * is bounded by the cache's TTL.
 */
export function invalidatesOwnedLists(schema: Schema): void {
  invalidating.add(schema);
  const hooks = schema as unknown as Hooks;
  hooks.post('save', async function (this: unknown) {
    await drop(modelNameOf(this), userOfDoc(this));
  });
  hooks.post(['deleteOne', 'updateOne'], { document: true, query: false }, async function () {
    await drop(modelNameOf(this), userOfDoc(this));
  });
  hooks.post(QUERY_WRITES, { document: false, query: true }, async function () {
    const query = this as Query<unknown, unknown>;
    await drop(query.model.modelName, usersOf(query));
  });
  hooks.post('insertMany', async function (docs: unknown) {
    await drop((this as Model<unknown>).modelName, usersOfDocs(docs));
  });
  hooks.post('bulkWrite', async function () {
    await drop((this as Model<unknown>).modelName, 'all');
  });
}

/** The model name of a document (`this` of document hooks). */
function modelNameOf(doc: unknown): string {
  return (doc as { constructor: { modelName: string } }).constructor.modelName;
}
