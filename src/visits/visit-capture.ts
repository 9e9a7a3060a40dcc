import { createHmac } from 'node:crypto';
import geoip from 'geoip-country';
import { LRUCache } from 'lru-cache';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
export const UNKNOWN_COUNTRY = 'Unknown';

/** Names by upper-cased code: at most 26 x 26 of them, so the map needs no bound. */
const names = new Map<string, string>();

/** English country name for an ISO 3166-1 alpha-2 code; `Unknown` for anything else (e.g. `XX`, `T1`). */
export function countryName(code: string | undefined): string {
  if (!code || !/^[A-Za-z]{2}$/.test(code)) return UNKNOWN_COUNTRY;
  const upper = code.toUpperCase();
  let name = names.get(upper);
  if (name === undefined) {
    name = nameOf(upper);
    names.set(upper, name);
  }
  return name;
}

function nameOf(upper: string): string {
  if (upper === 'XX' || upper === 'ZZ') return UNKNOWN_COUNTRY;
  try {
    const name = regionNames.of(upper);
    return name && name !== upper ? name : UNKNOWN_COUNTRY;
  } catch {
    return UNKNOWN_COUNTRY;
  }
}

/**
 * Countries by client address. A GeoIP lookup (parse, binary search, name) runs for every click
 * without a country header, and the same visitors click again and again; the database is the one
 * the package shipped with, so an entry never goes stale while the process runs.
 */
const countries = new LRUCache<string, string>({ max: 10_000 });

/** Country from a trusted proxy's header when one is configured, else an offline GeoIP lookup. */
export function resolveCountry(ip: string, headerValue: string | undefined): string {
  if (headerValue !== undefined) return countryName(headerValue.trim());
  let country = countries.get(ip);
  if (country === undefined) {
    const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
    country = countryName(address ? geoip.lookup(address)?.country : undefined);
    countries.set(ip, country);
  }
  return country;
}

/**
 * A salted, keyed hash of address and User-Agent: stable per visitor (for unique counts) and
 * useless for recovering the address without the deployment's secret salt.
 */
export function hashVisitor(salt: string, ip: string, userAgent: string): string {
  return createHmac('sha256', salt).update(`${ip}\n${userAgent}`).digest('base64url').slice(0, 22);
}
