import { createHash } from 'node:crypto';
import { conflict, notFound } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { generateApiKey, hashApiKey, hashPassword } from '../shared/secrets';
import { User, type UserRecord } from './user.model';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';
import type { Invalidator } from '../shared/cache/shared-cache';
import { ApiKey } from '../keys/key.model';
import { invalidateUserKeys, keyHashesOf } from '../keys/callers';
import { invalidateAccountMemberships } from '../team/acting-account';
import { keyPrefixOf } from '../keys/key-secret';

export interface NewUser {
  email: string;
  username: string;
  plan?: string;
  password?: string;
  expires?: Date;
  avatar?: string;
  admin?: boolean;
}

function defaultAvatar(email: string): string {
  const digest = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${digest}?d=identicon`;
}

/** Creates a user and returns the API key, which exists in clear only in this return value. */
export async function createUser(input: NewUser): Promise<{ user: UserRecord; apiKey: string }> {
  const email = input.email.trim().toLowerCase();
  const username = input.username.trim();
  const existing = await User.findOne({ $or: [{ email }, { username }] }).lean();
  if (existing)
    throw conflict(
      existing.email === email ? 'email is already registered' : 'username is already taken',
    );
  const apiKey = generateApiKey();
  try {
    const doc = await User.create({
      id: await nextId('users'),
      email,
      username,
      avatar: input.avatar ?? defaultAvatar(email),
      status: input.plan ?? 'free',
      expires: input.expires ?? null,
      registered: new Date(),
      passwordHash: input.password ? await hashPassword(input.password) : null,
      apiKeyHash: hashApiKey(apiKey),
      apiKeyPrefix: keyPrefixOf(apiKey),
      admin: input.admin ?? false,
    });
    return { user: doc.toObject(), apiKey };
  } catch (err) {
    if (isDuplicateKeyError(err))
      throw conflict(`${Object.keys(err.keyValue ?? {})[0] ?? 'user'} is already taken`);
    throw err;
  }
}

/**
 * Replaces the user's default key. The old one keeps working for `graceSeconds` (none: it stops
 * at once), in every API process; a key replaced earlier and still in its grace period stops now.
 */
export async function rotateApiKey(
  userId: number,
  apiKeys: Invalidator,
  graceSeconds = 0,
  now = new Date(),
): Promise<{ apiKey: string; previousUntil: Date | null }> {
  const apiKey = generateApiKey();
  const previous = await User.findOne({ id: userId }).lean();
  if (!previous) throw notFound(`No user with id ${userId}`);
  const previousUntil = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
  const updated = await User.findOneAndUpdate(
    { id: userId, apiKeyHash: previous.apiKeyHash },
    {
      $set: {
        apiKeyHash: hashApiKey(apiKey),
        apiKeyPrefix: keyPrefixOf(apiKey),
        previousApiKeyHash: previousUntil ? previous.apiKeyHash : null,
        previousApiKeyPrefix: previousUntil ? (previous.apiKeyPrefix ?? null) : null,
        previousApiKeyUntil: previousUntil,
      },
    },
  ).lean();
  if (!updated) throw conflict('The key was rotated at the same moment; try again');
  await invalidateUserKeys(apiKeys, previous);
  return { apiKey, previousUntil };
}

/** Deletes the user record; its key stops working at once, in every API process. */
export async function deleteUser(userId: number, apiKeys: Invalidator): Promise<void> {
  // Not findOneAndDelete: the embedded engine refuses it (docs/mongodb-compatibility.md).
  const user = await User.findOne({ id: userId }).lean();
  const hashes = user ? await keyHashesOf(user) : [];
  if (!user || (await User.deleteOne({ id: userId })).deletedCount === 0)
    throw notFound(`No user with id ${userId}`);
  await ApiKey.deleteMany({ userId });
  await apiKeys.invalidate(hashes);
}

export async function findUserById(id: number): Promise<UserRecord | null> {
  return User.findOne({ id }).lean();
}

export async function findUserByEmail(email: string): Promise<UserRecord | null> {
  return User.findOne({ email: email.trim().toLowerCase() }).lean();
}

/** Grants or withdraws the administrator flag, in every API process at once. */
export async function setAdmin(
  userId: number,
  admin: boolean,
  apiKeys: Invalidator,
): Promise<UserRecord> {
  const user = await User.findOneAndUpdate(
    { id: userId },
    { $set: { admin } },
    { returnDocument: 'after' },
  ).lean();
  if (!user) throw notFound(`No user with id ${userId}`);
  await invalidateUserKeys(apiKeys, user);
  return user;
}

/**
 * Moves a user to a plan (their `status`) with its end date; null never ends. Their keys and the
 * members acting in their account (whose requests count against this plan) see it at once.
 */
export async function setUserPlan(
  userId: number,
  plan: string,
  expires: Date | null,
  caches: { apiKeys: Invalidator; memberships: Invalidator },
) {
  const updated = await User.findOneAndUpdate(
    { id: userId },
    { $set: { status: plan, expires } },
  ).lean();
  if (!updated) throw notFound('User not found');
  await invalidateUserKeys(caches.apiKeys, updated);
  await invalidateAccountMemberships(caches.memberships, userId);
}

export async function getUser(id: number): Promise<UserRecord> {
  const user = await User.findOne({ id }).lean();
  if (!user) throw notFound('User not found');
  return user;
}

/** Users by id, optionally only administrators (`admin`) or one plan's users. */
export async function listUsers(query: { filter?: string; limit: number; page: number }) {
  const filter =
    query.filter === undefined
      ? {}
      : query.filter === 'admin'
        ? { admin: true }
        : { status: query.filter };
  return User.find(filter)
    .sort({ id: 1 })
    .skip((query.page - 1) * query.limit)
    .limit(query.limit)
    .lean();
}
