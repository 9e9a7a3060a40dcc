import ipaddr from 'ipaddr.js';

/**
 * True for any address a server-side fetch must refuse; anything that is not an IP included.
 * Only ipaddr.js's plain `unicast` range passes, so every special-purpose range it knows (private,
 * loopback, link-local, CGNAT, documentation, benchmarking, multicast, reserved, NAT64, 6to4,
 * Teredo, IPv4-translated, ...) is refused without a hand-kept list. An IPv4-mapped address is
 * judged by the IPv4 address it carries.
 */
export function isForbiddenAddress(address: string): boolean {
  const text = address.replace(/%.*$/, '');
  // ipaddr.js also accepts legacy IPv4 forms such as "127.1": only dotted quads count here.
  if (!text.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(text)) return true;
  if (!ipaddr.isValid(text)) return true;
  // `process` turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  return ipaddr.process(text).range() !== 'unicast';
}
