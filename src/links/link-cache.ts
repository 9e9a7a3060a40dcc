import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import type { ClickLimitOf } from '../visitor/click-limit';
import type { CompiledRules } from '../visitor/rules/rules';
import type { CachedVariant } from '../visitor/variants';
import type { VisitorBehaviour } from './link-behaviour.service';

/** What the redirect needs to answer a visitor, without touching MongoDB. */
export interface LinkTarget {
  id: number;
  url: string;
  /** Epoch milliseconds, or null when the link never expires. */
  expiresAt: number | null;
  passwordHash: string | null;
  /**
   * A bare 302 for every visitor, to `url` or to the destination its rules pick (no password,
   * page, pixel...): the only links the redirect fast path may answer before the middleware chain.
   */
  direct: boolean;
  /** Pixels, pages and preview tags; null (or absent) for a link that is a bare 302. */
  behaviour?: VisitorBehaviour | null;
  /** The link's rules and GemPixel targeting, compiled once per cached link; null when none. */
  rules?: CompiledRules | null;
  /** `maxclicks`, with the stored clicks a lost counter restarts from; null when unlimited. */
  limit?: ClickLimitOf | null;
  /** A/B variants, tried when no rule matches; null when the link has none. */
  variants?: CachedVariant[] | null;
  /** Where visitors go once the link has expired (by date or by clicks); null: the 410 page. */
  expiredUrl?: string | null;
}

/** Cache key of an alias on a domain (0 is PUBLIC_URL). */
export function linkCacheKey(domainId: number, alias: string): string {
  return `${domainId}:${alias}`;
}

export type LinkCache = SharedCache<LinkTarget>;

/**
 * Resolved aliases of this process. Unknown aliases are remembered briefly and apart, so a flood
 * of them reaches MongoDB once per alias and cannot push popular links out. The miss TTL is short
 * because one change is not published: deleting a branded domain lets its links answer on
 * PUBLIC_URL, within the same bound as the domains' own host cache. While Redis is away, links
 * are served past their TTL (stale beats a stalled redirect); they are dropped when it is back.
 */
export function linkCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): LinkCache {
  return sharedCache<LinkTarget>(cacheBusFor(deps), {
    name: 'links',
    max: 50_000,
    ttlMs: 60_000,
    missMax: 10_000,
    missTtlMs: 5_000,
    staleWhileDisconnected: true,
  });
}
