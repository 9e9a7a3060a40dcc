import { BrandedDomain } from '../domains/domain.model';
import { findUserDomain } from '../domains/domains.service';
import { CUSTOM_ALIAS_PATTERN } from './aliases';
import { validation } from '../shared/errors/app-error';
import { DEFAULT_DOMAIN_ID } from './link.model';

/** A branded domain a link can live on: its id and normalised origin (`https://go.example.com`). */
export interface LinkDomain {
  id: number;
  domain: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** GemPixel clients send `go.example.com` as often as `https://go.example.com`: both name a host. */
export function asDomainUrl(domain: string): string {
  const trimmed = domain.trim();
  return SCHEME.test(trimmed) ? trimmed : `https://${trimmed}`;
}

/** Whether `domain` (a URL or a bare host) names the service's own address, PUBLIC_URL. */
export function isOwnHost(domain: string, publicUrl: string): boolean {
  try {
    return new URL(asDomainUrl(domain)).host === new URL(publicUrl).host;
  } catch {
    return false;
  }
}

/**
 * The caller's branded domain named by `url/add`'s `domain` option, or null for PUBLIC_URL (no
 * domain, or the service's own host, which GemPixel clients send to mean "the default domain").
 */
export async function resolveRequestedDomain(
  userId: number,
  domain: string | undefined,
  publicUrl: string,
): Promise<LinkDomain | null> {
  if (domain === undefined || isOwnHost(domain, publicUrl)) return null;
  const owned = await findUserDomain(userId, asDomainUrl(domain));
  if (!owned) throw validation('domain must be one of your branded domains');
  return owned;
}

/**
 * Origins of the branded domains that still exist, by id. A link whose domain was deleted is
 * absent here: it is then shown and served on PUBLIC_URL.
 */
export async function existingDomainOrigins(ids: number[]): Promise<Map<number, string>> {
  const domains = await BrandedDomain.find({ id: { $in: ids } }).lean();
  return new Map(domains.map((d) => [d.id, d.domain]));
}

/** The origins of the branded domains these links live on (PUBLIC_URL links need none). */
export async function originsOf(links: Array<{ domainId: number }>): Promise<Map<number, string>> {
  const ids = [...new Set(links.map((l) => l.domainId).filter((id) => id !== DEFAULT_DOMAIN_ID))];
  return ids.length ? existingDomainOrigins(ids) : new Map();
}

/**
 * What `GET /api/urls?short=` names: a bare alias, or a short URL (with or without its scheme)
 * split into host and alias. Null when it cannot name a link at all.
 */
export function parseShort(short: string): { host?: string; alias: string } | null {
  const value = short.trim();
  if (CUSTOM_ALIAS_PATTERN.test(value)) return { alias: value };
  let url: URL;
  try {
    url = new URL(asDomainUrl(value));
  } catch {
    return null;
  }
  const alias = url.pathname.replace(/^\/+|\/+$/g, '');
  return CUSTOM_ALIAS_PATTERN.test(alias) ? { host: url.host, alias } : null;
}
