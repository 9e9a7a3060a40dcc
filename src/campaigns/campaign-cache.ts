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
