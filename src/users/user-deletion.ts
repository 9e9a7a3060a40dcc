import type { Redis } from 'ioredis';
import { Bio } from '../bio/bio.model';
import { deleteBioPage } from '../bio/bio.service';
import { Campaign } from '../campaigns/campaign.model';
import { rotatorCounterKey } from '../campaigns/rotation';
import { Channel, ChannelItem } from '../channels/channel.model';
import { BrandedDomain } from '../domains/domain.model';
import { deleteDomain } from '../domains/domains.service';
import { Link } from '../links/link.model';
import { deleteLink, type LinkInvalidator } from '../links/links.service';
import { Overlay } from '../overlays/overlay.model';
import { Pixel } from '../pixels/pixel.model';
import { QrCode } from '../qr-codes/qr-code.model';
import { deleteQr, type QrServiceContext } from '../qr-codes/qr-codes.service';
import type { Invalidator } from '../shared/cache/shared-cache';
import { notFound, validation } from '../shared/errors/app-error';
import { userRateLimitKey } from '../shared/http/rate-limit';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { Visits } from '../visits/visit-recorder';
import { SplashPage } from '../splash/splash-page.model';
import { ApiKey } from '../keys/key.model';
import { keyHashesOf } from '../keys/callers';
import { Webhook } from '../webhooks/webhook.model';
import { deleteWebhook } from '../webhooks/webhooks.service';
import { User } from './user.model';

export interface UserDeletionContext {
  redis: Redis;
  keys: RedisKeys;
  apiKeys: Invalidator;
  links: LinkInvalidator;
  hosts: Invalidator;
  campaignSlugs: Invalidator;
  visits: Pick<Visits, 'deleteVisits'>;
  qr: QrServiceContext;
}

const idsOf = (docs: Array<{ id: number }>) => docs.map((d) => d.id);

/**
 * An administrator deletes a user and everything they own. The account goes first, so the key stops working at
 * once; then each record through its own service, so visits, rendered images, channel
 * memberships and cache entries go with it (aliases stay reserved, as for any deleted link);
 * then the user's rate-limit counter and campaign rotator counters.
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
  const hashes = user ? await keyHashesOf(user) : [];
  const { deletedCount } = await User.deleteOne({ id: userId });
  if (!user || deletedCount === 0) throw notFound('User not found');
  await ApiKey.deleteMany({ userId });
  await ctx.apiKeys.invalidate(hashes);
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
    SplashPage.deleteMany({ userId }),
    ctx.redis.del(`${ctx.keys.rateLimit()}${userRateLimitKey(userId)}`, ...rotators),
  ]);
  await ctx.campaignSlugs.invalidate(campaigns.flatMap((c) => (c.slug ? [c.slug] : [])));
}
