import { isIP } from 'node:net';
import { validation } from '../shared/errors/app-error';

const SCHEME = /^(https?):\/\//i;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** Two or more DNS labels, lower case (IDNs arrive here already in punycode), no trailing dot. */
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

/** Whether a request host could ever be a branded domain; anything else needs no lookup. */
export function isBrandableHost(hostname: string): boolean {
  return HOSTNAME.test(hostname) && isIP(hostname) === 0;
}

/**
 * The origin a branded domain is stored and compared as (`https://go.example.com`). Only a scheme
 * and a host name are accepted: a default port is dropped, any other port, a path other than `/`,
 * a query, a fragment, credentials and IP literals are refused, because the domain is matched by
 * the visitor's Host header alone.
 */
export function normaliseDomain(input: string): string {
  const raw = input.trim();
  const scheme = SCHEME.exec(raw);
  if (!scheme?.[1]) throw validation('domain must start with http:// or https://', 'domain');
  const authority = raw.slice(scheme[0].length).replace(/\/$/, '');
  if (/[/?#\\]/.test(authority)) {
    throw validation('domain must be a host only, without a path, query or fragment', 'domain');
  }
  if (authority.includes('@')) throw validation('domain must not contain credentials', 'domain');
  let url: URL;
  try {
    url = new URL(`${scheme[1].toLowerCase()}://${authority}/`);
  } catch {
    throw validation('domain must be a valid host name such as https://go.example.com', 'domain');
  }
  // The URL parser drops a scheme's default port, so any port left is a non-default one.
  if (url.port !== '') {
    throw validation('domain must not carry a port other than the default (80 or 443)', 'domain');
  }
  const host = url.hostname;
  if (host.startsWith('[') || isIP(host) !== 0) {
    throw validation('domain must be a domain name, not an IP address', 'domain');
  }
  if (!HOSTNAME.test(host)) {
    throw validation('domain must be a valid host name such as https://go.example.com', 'domain');
  }
  return `${url.protocol}//${host}`;
}

/** The host name of an origin returned by `normaliseDomain`. */
export function hostOf(domain: string): string {
  return new URL(domain).hostname;
}
