import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import type { CampaignRecord } from './campaign.model';

export type CampaignCache = SharedCache<CampaignRecord>;

/** Campaigns by rotator slug, for `/r/{slug}`; create, update and delete invalidate the slugs. */
export function campaignCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): CampaignCache {
  return sharedCache<CampaignRecord>(cacheBusFor(deps), {
    name: 'campaigns',
    max: 10_000,
    ttlMs: 60_000,
    missMax: 1_000,
    missTtlMs: 5_000,
  });
}

/** A link in a campaign's rotation: enough to find it in the link cache. */
export interface RotatorMember {
  id: number;
  domainId: number;
  alias: string;
}

export type RotatorCache = SharedCache<RotatorMember[]>;

/**
 * The links of each campaign's rotator (`/r/{slug}`), by campaign id, so a click reads no link
 * from MongoDB: each member is then resolved through the link cache, which every link write
 * invalidates. Assigning a link invalidates the campaigns it joins and leaves; a member deleted
 * or renamed meanwhile is skipped until then.
 */
export function rotatorCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): RotatorCache {
  return sharedCache<RotatorMember[]>(cacheBusFor(deps), {
    name: 'rotators',
    max: 10_000,
    ttlMs: 60_000,
  });
}

export const rotatorCacheKey = (campaignId: number) => String(campaignId);
