import { BrandedDomain } from '../domains/domain.model';
import { findUserDomain } from '../domains/domains.service';
import { validation } from '../shared/errors/app-error';
import { DEFAULT_DOMAIN_ID } from './link.model';

/** A branded domain a link can live on: its id and normalised origin (`https://go.example.com`). */
export interface LinkDomain {
  id: number;
  domain: string;
}

/** The caller's branded domain named by `url/add`'s `domain` option (undefined means PUBLIC_URL). */
export async function resolveRequestedDomain(
  userId: number,
  domain: string | undefined,
): Promise<LinkDomain | null> {
  if (domain === undefined) return null;
  const owned = await findUserDomain(userId, domain);
  if (!owned) throw validation('domain must be one of your branded domains', 'domain');
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
