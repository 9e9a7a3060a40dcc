import { conflict, notFound, validation } from '../shared/errors/app-error';
import { hashPassword, verifyPassword } from '../shared/secrets';
import type { Invalidator } from '../shared/cache/shared-cache';
import { invalidateUserKeys } from '../keys/callers';
import { User, type UserRecord } from '../users/user.model';
import type { AccountUpdate } from './account.schemas';

/** Changes the caller's account; the cached copy behind their key is dropped everywhere. */
export async function updateAccount(
  userId: number,
  update: AccountUpdate,
  apiKeys: Invalidator,
): Promise<void> {
  const set: Record<string, unknown> = {};
  if (update.email !== undefined) {
    const owner = await User.findOne({ email: update.email }).lean();
    if (owner && owner.id !== userId) throw conflict('email is already registered');
    set.email = update.email;
  }
  if (update.password !== undefined) set.passwordHash = await hashPassword(update.password);
  const previous = await User.findOneAndUpdate({ id: userId }, { $set: set }).lean();
  if (!previous) throw notFound('Account not found');
  await invalidateUserKeys(apiKeys, previous);
}

/**
 * A dashboard session is not the account's whole credential: changing how one signs in (email,
 * password) or rotating the key asks for the current password, so a stolen session cannot keep
 * the account.
 */
export async function confirmCurrentPassword(
  user: UserRecord,
  current: string | undefined,
): Promise<void> {
  if (!current) {
    throw validation('current is required: your current password, to change this', 'current');
  }
  if (!user.passwordHash || !(await verifyPassword(current, user.passwordHash))) {
    throw validation('current: the current password is wrong', 'current');
  }
}
