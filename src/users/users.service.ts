import { createHash } from 'node:crypto';
import { conflict, notFound } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { generateApiKey, hashApiKey, hashPassword } from '../shared/secrets';
import { User, type UserRecord } from './user.model';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';
import type { Invalidator } from '../shared/cache/shared-cache';
import { apiKeyCacheKeyOf } from './api-key-cache';

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
      admin: input.admin ?? false,
    });
    return { user: doc.toObject(), apiKey };
  } catch (err) {
    if (isDuplicateKeyError(err))
      throw conflict(`${Object.keys(err.keyValue ?? {})[0] ?? 'user'} is already taken`);
    throw err;
  }
}

/** Replaces the user's key; the old one stops working at once, in every API process. */
export async function rotateApiKey(userId: number, apiKeys: Invalidator): Promise<string> {
  const apiKey = generateApiKey();
  const previous = await User.findOneAndUpdate(
    { id: userId },
    { $set: { apiKeyHash: hashApiKey(apiKey) } },
    { returnDocument: 'before' },
  ).lean();
  if (!previous) throw notFound(`No user with id ${userId}`);
  await apiKeys.invalidate([apiKeyCacheKeyOf(previous)]);
  return apiKey;
}

/** Deletes the user record; its key stops working at once, in every API process. */
export async function deleteUser(userId: number, apiKeys: Invalidator): Promise<void> {
  // Not findOneAndDelete: the embedded engine refuses it (docs/mongodb-compatibility.md).
  const user = await User.findOne({ id: userId }).lean();
  if (!user || (await User.deleteOne({ id: userId })).deletedCount === 0)
    throw notFound(`No user with id ${userId}`);
  await apiKeys.invalidate([apiKeyCacheKeyOf(user)]);
}

export async function findUserByApiKeyHash(apiKeyHash: string): Promise<UserRecord | null> {
  return User.findOne({ apiKeyHash }).lean();
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
  await apiKeys.invalidate([apiKeyCacheKeyOf(user)]);
  return user;
}

/** Moves a user to a plan (their `status`) with its end date; null never ends. */
export async function setUserPlan(
  userId: number,
  plan: string,
  expires: Date | null,
  apiKeys: Invalidator,
) {
  const updated = await User.findOneAndUpdate(
    { id: userId },
    { $set: { status: plan, expires } },
  ).lean();
  if (!updated) throw notFound('User not found');
  await apiKeys.invalidate([apiKeyCacheKeyOf(updated)]);
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
