import type { CustomHelpers, ErrorReport } from 'joi';
import ipaddr from 'ipaddr.js';

/** A DNS label as resolvers accept it (underscores included, as in `_dmarc`), 1-63 characters. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Whether a URL's host (as `new URL` gives it: lower case, IDNs in punycode) is a host name or an
 * IP address. WHATWG URL parsing lets `;`, `,`, `'`, `*` and more through in a host; a host like
 * `x;script-src` would end a Content-Security-Policy directive and start another.
 */
export function isCleanHost(hostname: string): boolean {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    return ipaddr.IPv6.isValid(hostname.slice(1, -1));
  }
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (!name || name.length > 253) return false;
  return name.split('.').every((label) => LABEL.test(label));
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** Whether `url` is an http(s) URL whose host is clean (see `isCleanHost`). */
export function isWebUrl(url: string): boolean {
  const parsed = parse(url);
  return (
    !!parsed &&
    (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
    isCleanHost(parsed.hostname)
  );
}

/** The origin of an http(s) URL with a clean host, as a CSP source; anything else: null. */
export function cleanOrigin(url: string): string | null {
  return isWebUrl(url) ? (parse(url) as URL).origin : null;
}

export const WEB_URL_HOST_MESSAGE =
  '{{#label}} must be an http or https URL whose host is a valid host name or address';

/**
 * Joi `.custom` step for every URL a user gives: after `.uri()` (which accepts such hosts as
 * RFC 3986 allows), refuses one whose host is not a host name or an address.
 */
export function cleanUrlHost(value: string, helpers: CustomHelpers<string>): string | ErrorReport {
  const parsed = parse(value);
  // What is not an http(s) URL at all is `.uri()`'s to name: one message per fault.
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return value;
  if (isCleanHost(parsed.hostname)) return value;
  return helpers.message({ custom: WEB_URL_HOST_MESSAGE });
}
