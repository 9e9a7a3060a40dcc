import Joi from 'joi';
import { dateTimeJson, idJson, record, urlJson } from '../shared/http/responses';
import { presentVerification } from './domain-ownership';
import type { BrandedDomainRecord } from './domain.model';

/** A branded domain as the spec lists it (4.4); an unset redirect is `null`. */
export function presentDomain(domain: BrandedDomainRecord) {
  return {
    id: domain.id,
    domain: domain.domain,
    redirectroot: domain.redirectroot ?? null,
    redirect404: domain.redirect404 ?? null,
    verification: presentVerification(domain),
  };
}

export const domainJson = record({
  id: idJson,
  domain: urlJson.example('https://go.example.com'),
  redirectroot: urlJson.allow(null),
  redirect404: urlJson.allow(null),
  verification: record({
    status: Joi.string()
      .valid('pending', 'verified', 'suspended')
      .description('Only a verified domain serves its links'),
    record: record({
      type: Joi.string().valid('TXT'),
      name: Joi.string().example('_linkqr.go.example.com'),
      value: Joi.string().allow(null).example('linkqr-verify=7dB1cE0k9R2pWq5xYz3aLm8n'),
    }).description('The DNS record that proves the domain is yours'),
    verifiedAt: dateTimeJson.allow(null),
    checkedAt: dateTimeJson.allow(null),
    suspendedAt: dateTimeJson.allow(null),
  }).description('Ownership, proven by a TXT record and checked again periodically'),
});
