import type { Invalidator } from '../shared/cache/shared-cache';
import { conflict, notFound, validation } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { generateApiKey, hashApiKey } from '../shared/secrets';
import { rotateApiKey } from '../users/users.service';
import type { UserRecord } from '../users/user.model';
import { DEFAULT_KEY_ID } from './callers';
import { keyPrefixOf } from './key-secret';
import { ApiKey, type ApiKeyRecord } from './key.model';
import type { KeyCreate } from './keys.schemas';

/** Named keys a user may hold at once, beside the default key. */
export const MAX_KEYS = 100;

export interface IssuedKey {
  id: number;
  /** The key in clear: exists only in this answer. */
  key: string;
  /** When the key it replaced stops working (rotation with a grace period). */
  previousUntil: Date | null;
}

export async function createKey(userId: number, input: KeyCreate): Promise<IssuedKey> {
  if ((await ApiKey.countDocuments({ userId })) >= MAX_KEYS) {
    throw validation(`A user holds at most ${MAX_KEYS} keys: revoke one first`);
  }
  if (input.expires && input.expires.getTime() <= Date.now()) {
    throw validation('expires must be in the future', 'expires');
  }
  const key = generateApiKey();
  const id = await nextId('api_keys');
  await ApiKey.create({
    id,
    userId,
    name: input.name,
    prefix: keyPrefixOf(key),
    keyHash: hashApiKey(key),
    scopes: input.scopes,
    expires: input.expires ?? null,
  });
  return { id, key, previousUntil: null };
}

export async function listKeys(userId: number): Promise<ApiKeyRecord[]> {
  return ApiKey.find({ userId }).sort({ id: 1 }).lean();
}

async function ownedKey(userId: number, id: number): Promise<ApiKeyRecord> {
  const key = await ApiKey.findOne({ id, userId }).lean();
  if (!key) throw notFound('Key not found');
  return key;
}

/** Revokes a named key and its predecessor at once, in every API process. */
export async function revokeKey(userId: number, id: number, apiKeys: Invalidator): Promise<void> {
  if (id === DEFAULT_KEY_ID) {
    throw validation('The default key cannot be revoked: rotate it instead');
  }
  const key = await ownedKey(userId, id);
  if ((await ApiKey.deleteOne({ id, userId })).deletedCount === 0) throw notFound('Key not found');
  await apiKeys.invalidate([key.keyHash, ...(key.previousHash ? [key.previousHash] : [])]);
}

/**
 * Gives a key a new secret, keeping its id, name and scopes. The old secret keeps working for
 * `graceSeconds` (0: it stops at once); a secret replaced before and still in grace stops now.
 */
export async function rotateKey(
  user: Pick<UserRecord, 'id'>,
  id: number,
  graceSeconds: number,
  apiKeys: Invalidator,
  now = new Date(),
): Promise<IssuedKey> {
  if (id === DEFAULT_KEY_ID) {
    const { apiKey, previousUntil } = await rotateApiKey(user.id, apiKeys, graceSeconds, now);
    return { id, key: apiKey, previousUntil };
  }
  const old = await ownedKey(user.id, id);
  const key = generateApiKey();
  const previousUntil = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
  const updated = await ApiKey.findOneAndUpdate(
    { id, userId: user.id, keyHash: old.keyHash },
    {
      $set: {
        keyHash: hashApiKey(key),
        prefix: keyPrefixOf(key),
        previousHash: previousUntil ? old.keyHash : null,
        previousPrefix: previousUntil ? old.prefix : null,
        previousUntil,
      },
    },
  ).lean();
  if (!updated) throw conflict('The key was rotated at the same moment; try again');
  await apiKeys.invalidate([old.keyHash, ...(old.previousHash ? [old.previousHash] : [])]);
  return { id, key, previousUntil };
}
