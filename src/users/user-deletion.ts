import type { RedisClient } from '../shared/infra/redis-connections';
import type { AppDeps } from '../deps';
import { Bio } from '../bio/bio.model';
import { deleteBioPage } from '../bio/bio.service';
import { campaignCacheFor } from '../campaigns/campaign-cache';
import { Campaign } from '../campaigns/campaign.model';
import { rotatorCounterKey } from '../campaigns/rotation';
import { Channel, ChannelItem } from '../channels/channel.model';
import { domainCacheFor } from '../domains/domain-cache';
import { BrandedDomain } from '../domains/domain.model';
import { deleteDomain } from '../domains/domains.service';
import { linkCacheFor } from '../links/link-cache';
import { Link, type LinkRecord } from '../links/link.model';
import { cacheKeysOf, deleteLink, type LinkInvalidator } from '../links/links.service';
import { Overlay } from '../overlays/overlay.model';
import { OverlayResponse } from '../overlays/overlay-response.model';
import { deleteUploads } from '../qr-codes/logo/logo-uploads';
import { Pixel } from '../pixels/pixel.model';
import { QrCode } from '../qr-codes/qr-code.model';
import { deleteQr, qrServiceContext, type QrServiceContext } from '../qr-codes/qr-codes.service';
import type { Invalidator } from '../shared/cache/shared-cache';
import { notFound, validation } from '../shared/errors/app-error';
import { userRateLimitKey } from '../shared/http/rate-limit';
import type { Logger } from '../shared/infra/logger';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { Visits } from '../visits/visit-recorder';
import { accountTarget } from '../stats/account-rollup';
import { deleteRollups } from '../stats/stats-rollup';
import { SplashPage } from '../splash/splash-page.model';
import { ApiKey } from '../keys/key.model';
import { keyHashesOf } from '../keys/callers';
import { apiKeyCacheFor } from './api-key-cache';
import { Webhook } from '../webhooks/webhook.model';
import { deleteWebhook } from '../webhooks/webhooks.service';
import { membershipCacheFor, membershipCacheKey } from '../team/acting-account';
import { Membership } from '../team/membership.model';
import { deleteTwoFactor } from '../two-factor/two-factor.service';
import { User } from './user.model';
import { UserDeletion } from './user-deletion.model';

export interface UserDeletionContext {
  redis: RedisClient;
  keys: RedisKeys;
  apiKeys: Invalidator;
  links: LinkInvalidator;
  hosts: Invalidator;
  campaignSlugs: Invalidator;
  visits: Pick<Visits, 'deleteVisits'>;
  qr: QrServiceContext;
  memberships: Invalidator;
  logger: Logger;
}

/** The deletion context of an API or worker process. */
export function userDeletionContextFor(
  deps: Pick<AppDeps, 'config' | 'redis' | 'keys' | 'logger' | 'qrQueue' | 'cacheClock'> & {
    visits: Pick<Visits, 'deleteVisits'>;
  },
): UserDeletionContext {
  return {
    redis: deps.redis,
    keys: deps.keys,
    apiKeys: apiKeyCacheFor(deps),
    links: linkCacheFor(deps),
    hosts: domainCacheFor(deps),
    campaignSlugs: campaignCacheFor(deps),
    visits: deps.visits,
    qr: qrServiceContext(deps),
    memberships: membershipCacheFor(deps),
    logger: deps.logger,
  };
}

/** How long a clean-up may run before another process may take it over. */
const LEASE_MS = 10 * 60_000;
const LINK_PAGE = 1000;

const idsOf = (docs: Array<{ id: number }>) => docs.map((d) => d.id);

/**
 * An administrator deletes a user and everything they own, resumably. First a deletion marker
 * (from then on the visitor path treats the user's links as gone), then the account, so the key
 * stops working at once, then every cached link of theirs is dropped; then the records go one by
 * one through their own services (`cleanUpUser`). When that stops halfway (a crash, an outage),
 * the marker stays and the worker finishes the job (`resumeUserDeletions`): every step deletes
 * what is left, so running it again is harmless.
 */
export async function deleteUserAndContent(
  userId: number,
  adminId: number,
  ctx: UserDeletionContext,
) {
  // Deleting oneself would lock the last administrator out with no key to undo it.
  if (userId === adminId) {
    throw validation('An administrator cannot delete their own account with its own key');
  }
  const user = await User.findOne({ id: userId }).lean();
  if (!user) throw notFound('User not found');
  const now = Date.now();
  await UserDeletion.updateOne(
    { _id: userId },
    { $setOnInsert: { startedAt: new Date(now), leaseUntil: new Date(now + LEASE_MS) } },
    { upsert: true },
  );
  const hashes = await keyHashesOf(user);
  const { deletedCount } = await User.deleteOne({ id: userId });
  if (deletedCount === 0) throw notFound('User not found');
  await ApiKey.deleteMany({ userId });
  await ctx.apiKeys.invalidate(hashes);
  // Before anything else: no member may go on acting in a deleted account, nor it in others.
  await deleteMemberships(userId, ctx.memberships);
  await dropCachedLinks(userId, ctx.links);
  try {
    await cleanUpUser(userId, ctx);
  } catch (err) {
    ctx.logger.warn(
      { userId, err: (err as Error).message },
      'user deletion stopped halfway; the worker finishes it',
    );
  }
}

/** Drops every cached alias of the user's links, a page of links at a time. */
async function dropCachedLinks(userId: number, links: LinkInvalidator): Promise<void> {
  let after = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const page = await Link.find({ userId, id: { $lt: after } })
      .sort({ id: -1 })
      .limit(LINK_PAGE)
      .lean<LinkRecord[]>();
    if (page.length === 0) return;
    await links.invalidate(page.flatMap(cacheKeysOf));
    after = (page[page.length - 1] as LinkRecord).id;
  }
}

/** The user's memberships both ways (their team, the teams they are in), dropped everywhere. */
async function deleteMemberships(userId: number, memberships: Invalidator): Promise<void> {
  const filter = { $or: [{ accountId: userId }, { memberId: userId }] };
  const gone = await Membership.find(filter).lean();
  await Membership.deleteMany(filter);
  await memberships.invalidate(gone.map((m) => membershipCacheKey(m.accountId, m.memberId)));
}

/** Deletes whatever is left of a deleted user's records, then the marker; safe to run again. */
export async function cleanUpUser(userId: number, ctx: UserDeletionContext): Promise<void> {
  await deleteMemberships(userId, ctx.memberships);
  const owned = { userId };
  for (const id of idsOf(await Link.find(owned).lean())) {
    await deleteLink(userId, id, ctx.links, ctx.visits);
  }
  for (const id of idsOf(await QrCode.find(owned).lean())) await deleteQr(userId, id, ctx.qr);
  for (const id of idsOf(await Bio.find(owned).lean())) await deleteBioPage(userId, id);
  for (const id of idsOf(await BrandedDomain.find(owned).lean())) {
    await deleteDomain(userId, id, ctx.hosts);
  }
  for (const id of idsOf(await Webhook.find(owned).lean())) await deleteWebhook(userId, id);
  const campaigns = await Campaign.find(owned).lean();
  const rotators = idsOf(campaigns).map((id) => rotatorCounterKey(ctx.keys, id));
  await Promise.all([
    Channel.deleteMany({ userId }),
    ChannelItem.deleteMany({ userId }),
    Campaign.deleteMany({ userId }),
    Pixel.deleteMany({ userId }),
    Overlay.deleteMany({ userId }),
    // Visitors' names, emails and messages go with the account they were sent to.
    OverlayResponse.deleteMany({ userId }),
    deleteUploads(ctx.qr.logo.logoDir, userId),
    SplashPage.deleteMany({ userId }),
    deleteTwoFactor(userId),
    // One DEL per key: on a cluster they live in different slots.
    ...[`${ctx.keys.rateLimit()}${userRateLimitKey(userId)}`, ...rotators].map((k) =>
      ctx.redis.del(k),
    ),
  ]);
  await ctx.campaignSlugs.invalidate(campaigns.flatMap((c) => (c.slug ? [c.slug] : [])));
  // The account rollup and its sketches, once no link or code is left to subtract from it.
  await deleteRollups(accountTarget(userId), ctx.redis, ctx.keys);
  await UserDeletion.deleteOne({ _id: userId });
}

/**
 * Finishes the deletions that stopped halfway: each marker whose lease ran out is leased (a
 * compare-and-set on the lease, so one process takes it) and cleaned up. Returns how many
 * finished.
 */
export async function resumeUserDeletions(
  ctx: UserDeletionContext,
  now = new Date(),
): Promise<number> {
  const due = await UserDeletion.find({ leaseUntil: { $lte: now } })
    .sort({ leaseUntil: 1 })
    .limit(20)
    .lean();
  let finished = 0;
  for (const marker of due) {
    const { matchedCount } = await UserDeletion.updateOne(
      { _id: marker._id, leaseUntil: marker.leaseUntil },
      { $set: { leaseUntil: new Date(now.getTime() + LEASE_MS) } },
    );
    if (matchedCount !== 1) continue;
    await dropCachedLinks(marker._id, ctx.links);
    await cleanUpUser(marker._id, ctx);
    finished += 1;
  }
  return finished;
}
