import type { AppDeps } from '../deps';
import type { Caller } from '../keys/callers';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';

export type ApiKeyCache = SharedCache<Caller>;

/**
 * Callers (a user and what the key allows) by the hash of the key (the clear key is never kept).
 * Every write to a user (rotation, account change, plan change, deletion) invalidates all of the
 * user's key hashes (`invalidateUserKeys`), every write to a key its own; the short TTL bounds how
 * long a key could outlive a lost invalidation message.
 */
export function apiKeyCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): ApiKeyCache {
  return sharedCache<Caller>(cacheBusFor(deps), {
    name: 'api-keys',
    max: 10_000,
    ttlMs: 10_000,
    missMax: 1_000,
    missTtlMs: 2_000,
  });
}
