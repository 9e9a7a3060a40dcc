import type { RequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type Invalidator, type SharedCache } from '../shared/cache/shared-cache';
import { badRequest, forbidden } from '../shared/errors/app-error';
import { User, type UserRecord } from '../users/user.model';
import { Membership, type Role } from './membership.model';

export interface MemberGrant {
  role: Role;
  /** The account's user, whose records, plan and rate limit the member's requests use. */
  owner: UserRecord;
}

export type MembershipCache = SharedCache<MemberGrant>;

/** Memberships by `<account id>:<member id>`; a change to one drops it in every process at once. */
export function membershipCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): MembershipCache {
  return sharedCache<MemberGrant>(cacheBusFor(deps), {
    name: 'memberships',
    max: 10_000,
    ttlMs: 10_000,
    missMax: 1_000,
    missTtlMs: 2_000,
  });
}

export const membershipCacheKey = (accountId: number, memberId: number) =>
  `${accountId}:${memberId}`;

/**
 * Drops every cached membership of the account, in every process: each holds a copy of the
 * owner's record, whose plan and plan end a member's requests are judged by.
 */
export async function invalidateAccountMemberships(
  memberships: Invalidator,
  accountId: number,
): Promise<void> {
  const members = await Membership.find({ accountId }).lean();
  if (members.length === 0) return;
  await memberships.invalidate(members.map((m) => membershipCacheKey(accountId, m.memberId)));
}

export async function loadGrant(accountId: number, memberId: number): Promise<MemberGrant | null> {
  const membership = await Membership.findOne({ accountId, memberId }).lean();
  if (!membership) return null;
  const owner = await User.findOne({ id: accountId }).lean();
  return owner ? { role: membership.role, owner } : null;
}

export const ACCOUNT_HEADER = 'linkqr-account';

/**
 * `Linkqr-Account: <owner id>`: a member acts in the owner's account, as the owner's records,
 * plan and rate limit, capped by their role. Without the header (or with their own id) they act
 * in their own account. An account they are not a member of is refused before any route runs.
 */
export function actInAccount(deps: AppDeps): RequestHandler {
  const memberships = membershipCacheFor(deps);
  return async (req, _res, next) => {
    const header = req.headers[ACCOUNT_HEADER];
    if (header === undefined || !req.auth || !('user' in req.auth)) return next();
    const raw = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
    if (!/^[1-9]\d{0,14}$/.test(raw)) {
      return next(badRequest('Linkqr-Account must be the id of an account you are a member of'));
    }
    const accountId = Number(raw);
    const self = req.auth.actor ?? req.auth.user;
    if (accountId === self.id) return next();
    const key = membershipCacheKey(accountId, self.id);
    const grant = await memberships.get(key, () => loadGrant(accountId, self.id));
    if (!grant) return next(forbidden(`Forbidden: you are not a member of account ${accountId}`));
    if (grant.owner.expires && grant.owner.expires.getTime() <= Date.now()) {
      return next(forbidden(`Forbidden: the plan of account ${accountId} has ended`));
    }
    req.auth = { ...req.auth, user: grant.owner, actor: self, role: grant.role };
    next();
  };
}
