import type { Invalidator } from '../shared/cache/shared-cache';
import { User, type UserRecord } from '../users/user.model';
import { ApiKey } from './key.model';

/** The id the default key (the one on the user record, `user:create`'s) has among the keys. */
export const DEFAULT_KEY_ID = 0;

/** What a key allows, as the cache holds it beside the key's user. */
export interface KeyGrant {
  id: number;
  scopes: readonly string[];
  expires: Date | null;
  /** Set when the key presented is the one a rotation replaced: it works until then. */
  until: Date | null;
}

/** Who a key belongs to and what it may do. */
export interface Caller {
  user: UserRecord;
  key: KeyGrant;
}

const stillValid = (until: Date | null | undefined, now: Date) =>
  !!until && until.getTime() > now.getTime();

/**
 * The caller of a key, by its hash: the user's default key (`*`), a named key, or either's
 * predecessor during its rotation's grace period.
 */
export async function findCallerByHash(hash: string, now = new Date()): Promise<Caller | null> {
  const owner = await User.findOne({
    $or: [{ apiKeyHash: hash }, { previousApiKeyHash: hash }],
  }).lean();
  if (owner) {
    const current = owner.apiKeyHash === hash;
    if (!current && !stillValid(owner.previousApiKeyUntil, now)) return null;
    const until = current ? null : (owner.previousApiKeyUntil ?? null);
    return { user: owner, key: { id: DEFAULT_KEY_ID, scopes: ['*'], expires: null, until } };
  }
  const key = await ApiKey.findOne({ $or: [{ keyHash: hash }, { previousHash: hash }] }).lean();
  if (!key) return null;
  const current = key.keyHash === hash;
  if (!current && !stillValid(key.previousUntil, now)) return null;
  const user = await User.findOne({ id: key.userId }).lean();
  if (!user) return null;
  const grant: KeyGrant = {
    id: key.id,
    scopes: key.scopes,
    expires: key.expires ?? null,
    until: current ? null : (key.previousUntil ?? null),
  };
  return { user, key: grant };
}

type KeyHolder = Pick<UserRecord, 'id' | 'apiKeyHash' | 'previousApiKeyHash'>;

/** Every hash the cache may hold a caller of this user under: their default and named keys. */
export async function keyHashesOf(user: KeyHolder): Promise<string[]> {
  const named = await ApiKey.find({ userId: user.id }).lean();
  const hashes = [user.apiKeyHash, user.previousApiKeyHash];
  for (const key of named) hashes.push(key.keyHash, key.previousHash);
  return hashes.filter((hash): hash is string => typeof hash === 'string');
}

/** Drops every cached caller of the user (after a change to the user record), in every process. */
export async function invalidateUserKeys(apiKeys: Invalidator, user: KeyHolder): Promise<void> {
  await apiKeys.invalidate(await keyHashesOf(user));
}
