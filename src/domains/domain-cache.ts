import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import type { BrandedDomainContext } from '../shared/http/public-context';

export type DomainCache = SharedCache<BrandedDomainContext>;

/**
 * Branded domains by lower-case host. Hosts come from visitors' Host headers, so hosts that name
 * no domain are remembered too, apart and briefly.
 */
export function domainCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): DomainCache {
  return sharedCache<BrandedDomainContext>(cacheBusFor(deps), {
    name: 'domains',
    max: 10_000,
    ttlMs: 60_000,
    missMax: 1_000,
    missTtlMs: 5_000,
  });
}
