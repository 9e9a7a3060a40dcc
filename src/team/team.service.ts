import type { Invalidator } from '../shared/cache/shared-cache';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';
import { conflict, notFound, validation } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { User } from '../users/user.model';
import { membershipCacheKey } from './acting-account';
import { Membership, type Role } from './membership.model';
import type { MemberAdd } from './team.schemas';

/** Adds an existing user to the owner's account with a role. */
export async function addMember(ownerId: number, input: MemberAdd): Promise<number> {
  const member = await User.findOne({ username: input.username }).lean();
  if (!member) throw validation(`No user is called ${input.username}`, 'username');
  if (member.id === ownerId) throw validation('You own this account already', 'username');
  const id = await nextId('team_members');
  try {
    await Membership.create({ id, accountId: ownerId, memberId: member.id, role: input.role });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw conflict(`${input.username} is a member already`);
    throw err;
  }
  return id;
}

/** The owner's members with their usernames, and the accounts the user is a member of. */
export async function teamOf(userId: number) {
  const [members, memberships] = await Promise.all([
    Membership.find({ accountId: userId }).sort({ id: 1 }).lean(),
    Membership.find({ memberId: userId }).sort({ id: 1 }).lean(),
  ]);
  const ids = [...members.map((m) => m.memberId), ...memberships.map((m) => m.accountId)];
  const users = await User.find({ id: { $in: ids } }).lean();
  const nameOf = new Map(users.map((u) => [u.id, u.username]));
  return {
    members: members.map((m) => ({ ...m, username: nameOf.get(m.memberId) ?? null })),
    accounts: memberships.map((m) => ({ ...m, username: nameOf.get(m.accountId) ?? null })),
  };
}

async function ownedMembership(ownerId: number, id: number) {
  const membership = await Membership.findOne({ id, accountId: ownerId }).lean();
  if (!membership) throw notFound('Member not found');
  return membership;
}

/** Changes a member's role; it applies at once in every process. */
export async function updateMember(
  ownerId: number,
  id: number,
  role: Role,
  memberships: Invalidator,
): Promise<void> {
  const membership = await ownedMembership(ownerId, id);
  await Membership.updateOne({ id, accountId: ownerId }, { $set: { role } });
  await memberships.invalidate([membershipCacheKey(ownerId, membership.memberId)]);
}

/** Removes a member; their access to the account ends at once in every process. */
export async function removeMember(
  ownerId: number,
  id: number,
  memberships: Invalidator,
): Promise<void> {
  const membership = await ownedMembership(ownerId, id);
  await Membership.deleteOne({ id, accountId: ownerId });
  await memberships.invalidate([membershipCacheKey(ownerId, membership.memberId)]);
}
