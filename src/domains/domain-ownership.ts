import { randomBytes } from 'node:crypto';
import { formatOptionalDateTime } from '../shared/format/dates';
import type { DomainResolver } from './domain-check';
import type { BrandedDomainRecord } from './domain.model';

/**
 * Proof that whoever claims a branded domain controls its DNS (issue 29, M6): the TXT record
 * `_linkqr.<host>` must hold the claim's own token. "Points to this service" alone proved
 * nothing: a dangling record or a shared CDN address points here for everyone.
 */
export type OwnershipStatus = 'pending' | 'verified' | 'suspended';

/** A fresh token per claim: another account claiming the same host gets another one. */
export function newVerifyToken(): string {
  return `linkqr-verify=${randomBytes(18).toString('base64url')}`;
}

export function ownershipRecordName(host: string): string {
  return `_linkqr.${host}`;
}

/** DNS answers meaning "no such record" (as opposed to a DNS server failing to answer). */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/**
 * `found`: a TXT record of `_linkqr.<host>` is the token; `missing`: the name or the record does
 * not exist, or holds something else; `unknown`: DNS did not answer (a time-out, SERVFAIL), which
 * never suspends a domain.
 */
export type OwnershipCheck = 'found' | 'missing' | 'unknown';

export async function checkOwnership(
  resolver: Pick<DomainResolver, 'resolveTxt'>,
  host: string,
  token: string,
): Promise<OwnershipCheck> {
  try {
    const records = await resolver.resolveTxt(ownershipRecordName(host));
    return records.some((chunks) => chunks.join('').trim() === token) ? 'found' : 'missing';
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && ABSENT.has(code) ? 'missing' : 'unknown';
  }
}

/** A record's status; records older than the field were claimed by DNS alone and still serve. */
export function statusOf(domain: Pick<BrandedDomainRecord, 'status'>): OwnershipStatus {
  return (domain.status as OwnershipStatus | null | undefined) ?? 'verified';
}

/** What the API shows of a domain's ownership (a field added beside the spec's). */
export function presentVerification(domain: BrandedDomainRecord) {
  return {
    status: statusOf(domain),
    record: {
      type: 'TXT' as const,
      name: ownershipRecordName(domain.host),
      value: domain.verifyToken ?? null,
    },
    verifiedAt: formatOptionalDateTime(domain.verifiedAt),
    checkedAt: formatOptionalDateTime(domain.checkedAt),
    suspendedAt: formatOptionalDateTime(domain.suspendedAt),
  };
}
