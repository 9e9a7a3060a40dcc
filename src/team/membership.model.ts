import { Schema, model, type InferSchemaType } from 'mongoose';

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A user (`memberId`) allowed to act in another user's account (`accountId`) with a role. */
const membershipSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    accountId: { type: Number, required: true },
    memberId: { type: Number, required: true, index: true },
    role: { type: String, required: true, enum: ROLES },
    created: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'team_members' },
);

membershipSchema.index({ accountId: 1, memberId: 1 }, { unique: true });

export type MembershipRecord = InferSchemaType<typeof membershipSchema>;
export const Membership = model('Membership', membershipSchema);
