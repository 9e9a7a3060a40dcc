import { Schema, model } from 'mongoose';

/**
 * A user being deleted (`_id` = the user id): written before the account goes and removed once
 * every record of theirs is gone. While it exists the visitor path treats their links as gone,
 * and a worker resumes a clean-up that stopped halfway (user-deletion.ts). `leaseUntil` lets one
 * process at a time run the clean-up.
 */
const userDeletionSchema = new Schema(
  {
    _id: { type: Number, required: true },
    startedAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
  },
  { versionKey: false, collection: 'user_deletions' },
);
userDeletionSchema.index({ leaseUntil: 1 });

export const UserDeletion = model('UserDeletion', userDeletionSchema);

/** Whether the owner of a record is being deleted (one read by `_id`). */
export async function isBeingDeleted(userId: number): Promise<boolean> {
  return (await UserDeletion.exists({ _id: userId })) !== null;
}
