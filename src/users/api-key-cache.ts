import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import type { UserRecord } from './user.model';

export type ApiKeyCache = SharedCache<UserRecord>;

/**
 * Users by the hash of their API key (the clear key is never kept). Every write to a user
 * (rotation, account change, plan change, deletion) invalidates `apiKeyCacheKeyOf(user)`; the
 * short TTL bounds how long a key could outlive a lost invalidation message.
 */
export function apiKeyCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): ApiKeyCache {
  return sharedCache<UserRecord>(cacheBusFor(deps), {
    name: 'api-keys',
    max: 10_000,
    ttlMs: 10_000,
    missMax: 1_000,
    missTtlMs: 2_000,
  });
}

export function apiKeyCacheKeyOf(user: Pick<UserRecord, 'apiKeyHash'>): string {
  return user.apiKeyHash;
}
