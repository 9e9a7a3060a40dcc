import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/**
 * IPv6 clients are counted per /64: one subscriber usually holds a whole /64 (often more), so
 * counting each /128 would let one client rotate through 2^64 addresses past every limit.
 */
export const IPV6_CLIENT_PREFIX = 64;

/**
 * The key every per-client limit counts under (API, sign-in, contact forms, link passwords): the
 * client address Express derives under TRUST_PROXY, an IPv6 one cut to its /64.
 */
export function clientKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? 'unknown', IPV6_CLIENT_PREFIX);
}
