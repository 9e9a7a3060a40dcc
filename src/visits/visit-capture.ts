import { createHmac } from 'node:crypto';
import geoip from 'geoip-country';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
export const UNKNOWN_COUNTRY = 'Unknown';

/** English country name for an ISO 3166-1 alpha-2 code; `Unknown` for anything else (e.g. `XX`, `T1`). */
export function countryName(code: string | undefined): string {
  if (!code || !/^[A-Za-z]{2}$/.test(code)) return UNKNOWN_COUNTRY;
  const upper = code.toUpperCase();
  if (upper === 'XX' || upper === 'ZZ') return UNKNOWN_COUNTRY;
  try {
    const name = regionNames.of(upper);
    return name && name !== upper ? name : UNKNOWN_COUNTRY;
  } catch {
    return UNKNOWN_COUNTRY;
  }
}

/** Country from a trusted proxy's header when one is configured, else an offline GeoIP lookup. */
export function resolveCountry(ip: string, headerValue: string | undefined): string {
  if (headerValue !== undefined) return countryName(headerValue.trim());
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return countryName(address ? geoip.lookup(address)?.country : undefined);
}

/**
 * A salted, keyed hash of address and User-Agent: stable per visitor (for unique counts) and
 * useless for recovering the address without the deployment's secret salt.
 */
export function hashVisitor(salt: string, ip: string, userAgent: string): string {
  return createHmac('sha256', salt).update(`${ip}\n${userAgent}`).digest('base64url').slice(0, 22);
}
