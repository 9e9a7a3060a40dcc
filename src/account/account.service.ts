import { conflict, notFound } from '../shared/errors/app-error';
import { hashPassword } from '../shared/secrets';
import { User } from '../users/user.model';
import type { AccountUpdate } from './account.schemas';

export async function updateAccount(userId: number, update: AccountUpdate): Promise<void> {
  const set: Record<string, unknown> = {};
  if (update.email !== undefined) {
    const owner = await User.findOne({ email: update.email }).lean();
    if (owner && owner.id !== userId) throw conflict('email is already registered');
    set.email = update.email;
  }
  if (update.password !== undefined) set.passwordHash = await hashPassword(update.password);
  const result = await User.updateOne({ id: userId }, { $set: set });
  if (result.matchedCount === 0) throw notFound('Account not found');
}
