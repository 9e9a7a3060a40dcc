import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { LRUCache } from 'lru-cache';

/**
 * IPv6 clients are counted per /64: one subscriber usually holds a whole /64 (often more), so
 * counting each /128 would let one client rotate through 2^64 addresses past every limit.
 */
export const IPV6_CLIENT_PREFIX = 64;

/**
 * Keys by address. `ipKeyGenerator` parses every address as IPv6 first (an IPv4 client reaches
 * Node as `::ffff:a.b.c.d`), about 7 µs a call, and every redirect asks for its client's key: a
 * busy client's key is worked out once. Pure, so a bounded LRU needs no invalidation.
 */
const keys = new LRUCache<string, string>({ max: 10_000 });

/**
 * The key every per-client limit counts under (API, sign-in, contact forms, link passwords): the
 * client address Express derives under TRUST_PROXY, an IPv6 one cut to its /64.
 */
export function clientKey(req: Pick<Request, 'ip'>): string {
  const ip = req.ip ?? 'unknown';
  let key = keys.get(ip);
  if (key === undefined) {
    key = ipKeyGenerator(ip, IPV6_CLIENT_PREFIX);
    keys.set(ip, key);
  }
  return key;
}
