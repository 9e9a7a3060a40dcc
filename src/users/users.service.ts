import { createHash } from 'node:crypto';
import { conflict, notFound } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { generateApiKey, hashApiKey, hashPassword } from '../shared/secrets';
import { User, type UserRecord } from './user.model';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';

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

/** Replaces the user's key; the old one stops working at once. */
export async function rotateApiKey(userId: number): Promise<string> {
  const apiKey = generateApiKey();
  const updated = await User.findOneAndUpdate(
    { id: userId },
    { $set: { apiKeyHash: hashApiKey(apiKey) } },
  ).lean();
  if (!updated) throw notFound(`No user with id ${userId}`);
  return apiKey;
}

export async function findUserByApiKey(apiKey: string): Promise<UserRecord | null> {
  return User.findOne({ apiKeyHash: hashApiKey(apiKey) }).lean();
}

export async function findUserById(id: number): Promise<UserRecord | null> {
  return User.findOne({ id }).lean();
}

export async function findUserByEmail(email: string): Promise<UserRecord | null> {
  return User.findOne({ email: email.trim().toLowerCase() }).lean();
}

/** Grants or withdraws the administrator flag. */
export async function setAdmin(userId: number, admin: boolean): Promise<UserRecord> {
  const user = await User.findOneAndUpdate(
    { id: userId },
    { $set: { admin } },
    { returnDocument: 'after' },
  ).lean();
  if (!user) throw notFound(`No user with id ${userId}`);
  return user;
}

/** Moves a user to a plan (their `status`) with its end date; null never ends. */
export async function setUserPlan(userId: number, plan: string, expires: Date | null) {
  const updated = await User.findOneAndUpdate(
    { id: userId },
    { $set: { status: plan, expires } },
  ).lean();
  if (!updated) throw notFound('User not found');
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
