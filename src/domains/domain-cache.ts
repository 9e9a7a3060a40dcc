import type { BrandedDomainContext } from '../shared/http/public-context';
import { cacheCounters } from '../shared/metrics/process-metrics';

const TTL_MS = 5_000;
// Hosts come from visitors' Host headers, so misses are cached too but the map stays bounded.
const MAX_ENTRIES = 1_000;

interface Entry {
  value: Promise<BrandedDomainContext | null>;
  expires: number;
}

const entries = new Map<string, Entry>();
const lookups = cacheCounters('domain');

/**
 * The branded domain of a host, remembered in this process for a few seconds so visitor traffic
 * costs no query per request. Writes in this process call `forgetHost`; other processes see a
 * change within the TTL.
 */
export function cachedDomainByHost(
  host: string,
  load: (host: string) => Promise<BrandedDomainContext | null>,
  now = Date.now(),
): Promise<BrandedDomainContext | null> {
  const hit = entries.get(host);
  if (hit && hit.expires > now) {
    lookups.hit.inc();
    return hit.value;
  }
  lookups.miss.inc();
  if (hit) entries.delete(host);
  if (entries.size >= MAX_ENTRIES) {
    const oldest = entries.keys().next().value;
    if (oldest !== undefined) entries.delete(oldest);
  }
  const value = load(host);
  const entry = { value, expires: now + TTL_MS };
  entries.set(host, entry);
  value.catch(() => {
    if (entries.get(host) === entry) entries.delete(host);
  });
  return value;
}

export function forgetHost(host: string): void {
  entries.delete(host);
}
