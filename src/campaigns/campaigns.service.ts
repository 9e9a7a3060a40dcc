import { Link, type LinkRecord } from '../links/link.model';
import type { Invalidator } from '../shared/cache/shared-cache';
import { conflict, notFound } from '../shared/errors/app-error';
import { deleteOwned, findOwned, listOwned } from '../shared/db/owned';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { User } from '../users/user.model';
import { rotatorCacheKey, type RotatorMember } from './campaign-cache';
import { Campaign, type CampaignRecord } from './campaign.model';
import type { CampaignCreate, CampaignUpdate } from './campaigns.schemas';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';

/** The most links a public list page shows. */
export const LIST_PAGE_LIMIT = 500;

/**
 * The slug index is partial (only string slugs): MongoDB uses it only for a query that carries
 * its filter, so the lookup repeats `$type: 'string'` (campaign.model.ts).
 */
function bySlug(slug: string) {
  return { slug: { $eq: slug, $type: 'string' as const } };
}

async function ensureSlugFree(slug: string, exceptId?: number): Promise<void> {
  const holder = await Campaign.findOne(bySlug(slug)).lean<CampaignRecord>();
  if (holder && holder.id !== exceptId) throw conflict(`slug ${slug} is already taken`);
}

export async function listCampaigns(userId: number, query: PageQuery) {
  return listOwned(Campaign, userId, query);
}

/** Slugs whose cached answer (a campaign, or "no such slug") a write changed. */
function changedSlugs(...slugs: Array<string | null | undefined>): string[] {
  return slugs.filter((s): s is string => typeof s === 'string');
}

export async function createCampaign(
  userId: number,
  input: CampaignCreate,
  slugs: Invalidator,
): Promise<CampaignRecord> {
  if (input.slug !== undefined) await ensureSlugFree(input.slug);
  try {
    const doc = await Campaign.create({
      id: await nextId('campaigns'),
      userId,
      name: input.name ?? '',
      slug: input.slug ?? null,
      public: input.public ?? false,
      createdAt: new Date(),
    });
    await slugs.invalidate(changedSlugs(input.slug));
    return doc.toObject<CampaignRecord>();
  } catch (err) {
    // Another campaign took the slug between the check and the insert.
    if (isDuplicateKeyError(err)) throw conflict(`slug ${input.slug} is already taken`);
    throw err;
  }
}

export async function updateCampaign(
  userId: number,
  id: number,
  input: CampaignUpdate,
  slugs: Invalidator,
): Promise<CampaignRecord> {
  const campaign = await findOwned(Campaign, userId, id, 'Campaign');
  const set: Partial<CampaignRecord> = { name: input.name };
  if (input.slug !== undefined) {
    if (input.slug !== null) await ensureSlugFree(input.slug, id);
    set.slug = input.slug;
  }
  if (input.public !== undefined) set.public = input.public;
  try {
    await Campaign.updateOne({ id, userId }, { $set: set });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw conflict(`slug ${input.slug} is already taken`);
    throw err;
  }
  await slugs.invalidate(changedSlugs(campaign.slug, set.slug));
  return { ...campaign, ...set };
}

/** Deletes the campaign; its links stay, just no longer in a campaign. */
export async function deleteCampaign(
  userId: number,
  id: number,
  slugs: Invalidator,
  rotators: Invalidator,
): Promise<void> {
  const campaign = await findOwned(Campaign, userId, id, 'Campaign');
  await deleteOwned(Campaign, userId, id, 'Campaign');
  await slugs.invalidate(changedSlugs(campaign.slug));
  await Link.updateMany({ campaignId: id, userId }, { $set: { campaignId: null } });
  await rotators.invalidate([rotatorCacheKey(id)]);
}

/** Moves the caller's link into the caller's campaign (a link is in at most one). */
export async function assignLink(
  userId: number,
  campaignId: number,
  linkId: number,
  rotators: Invalidator,
) {
  await findOwned(Campaign, userId, campaignId, 'Campaign');
  const before = await Link.findOneAndUpdate(
    { id: linkId, userId },
    { $set: { campaignId } },
    { returnDocument: 'before' },
  ).lean<LinkRecord>();
  if (!before) throw notFound('Link not found');
  const left = before.campaignId ?? null;
  await rotators.invalidate(
    [campaignId, ...(left !== null && left !== campaignId ? [left] : [])].map(rotatorCacheKey),
  );
}

/** The links of a campaign's rotator, in rotation order (by id). */
export async function rotatorMembers(campaignId: number): Promise<RotatorMember[]> {
  const links = await Link.find({ campaignId })
    .sort({ id: 1 })
    .select({ id: 1, domainId: 1, alias: 1 })
    .lean<LinkRecord[]>();
  return links.map((l) => ({ id: l.id, domainId: l.domainId, alias: l.alias }));
}

/** The campaign's links in rotation order (by id). */
export async function campaignLinks(campaignId: number, limit?: number): Promise<LinkRecord[]> {
  const query = Link.find({ campaignId }).sort({ id: 1 });
  if (limit) query.limit(limit);
  return query.lean<LinkRecord[]>();
}

export async function findCampaignBySlug(slug: string): Promise<CampaignRecord | null> {
  return Campaign.findOne(bySlug(slug)).lean<CampaignRecord>();
}

/** A public campaign of that user, or null (unknown, someone else's, or not public). */
export async function findPublicCampaign(
  username: string,
  id: number,
): Promise<CampaignRecord | null> {
  const user = await User.findOne({ username }).lean();
  if (!user) return null;
  return Campaign.findOne({ id, userId: user.id, public: true }).lean<CampaignRecord>();
}
