import ipaddr from 'ipaddr.js';

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/**
 * ipaddr.js reads `::8.8.8.8` as `::ffff:8.8.8.8`, so the embedded IPv4 part is set to zero and
 * the rest parsed alone (hex groups only) to see which prefix the text really has.
 */
function isIpv4Compatible(text: string): boolean {
  const lastColon = text.lastIndexOf(':');
  const hexOnly = text.includes('.') ? `${text.slice(0, lastColon + 1)}0:0` : text;
  if (!ipaddr.IPv6.isValid(hexOnly)) return false;
  return ipaddr.IPv6.parse(hexOnly).match(IPV4_COMPATIBLE);
}

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
  // IPv4-compatible addresses (::/96, deprecated by RFC 4291): `process` would read ::8.8.8.8 as
  // 8.8.8.8, though a connection to it goes to an IPv6 address no public host holds.
  if (text.includes(':') && isIpv4Compatible(text)) return true;
  // `process` turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  return ipaddr.process(text).range() !== 'unicast';
}
