import { conflict, notFound } from '../shared/errors/app-error';
import { hashPassword } from '../shared/secrets';
import type { Invalidator } from '../shared/cache/shared-cache';
import { invalidateUserKeys } from '../keys/callers';
import { User } from '../users/user.model';
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
