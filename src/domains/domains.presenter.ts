import { idJson, record, urlJson } from '../shared/http/responses';
import type { BrandedDomainRecord } from './domain.model';

/** A branded domain as the spec lists it (4.4); an unset redirect is `null`. */
export function presentDomain(domain: BrandedDomainRecord) {
  return {
    id: domain.id,
    domain: domain.domain,
    redirectroot: domain.redirectroot ?? null,
    redirect404: domain.redirect404 ?? null,
  };
}

export const domainJson = record({
  id: idJson,
  domain: urlJson.example('https://go.example.com'),
  redirectroot: urlJson.allow(null),
  redirect404: urlJson.allow(null),
});
