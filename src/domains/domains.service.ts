import type { Model } from 'mongoose';
import { conflict, notFound } from '../shared/errors/app-error';
import { deleteOwned, findOwned, listOwned } from '../shared/db/owned';
import type { BrandedDomainContext } from '../shared/http/public-context';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import type { Invalidator } from '../shared/cache/shared-cache';
import type { DomainVerifier } from './domain-check';
import { newVerifyToken, statusOf } from './domain-ownership';
import { BrandedDomain, type BrandedDomainRecord } from './domain.model';
import { hostOf, normaliseDomain } from './domain-name';
import type { DomainCreate, DomainUpdate } from './domains.schemas';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';

export { normaliseDomain };

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedDomains = BrandedDomain as Model<BrandedDomainRecord>;

const LABEL = 'Domain';
const TAKEN = 'domain is already registered';

/** `""` and `null` both mean "no redirect". */
function redirectValue(value: string | null | undefined): string | null {
  return value ? value : null;
}

export function listDomains(userId: number, query: PageQuery) {
  return listOwned(ownedDomains, userId, query);
}

/**
 * How long an unproven claim holds its host against other accounts: after that, someone else may
 * claim it (a squatter on a dangling record cannot hold a domain forever).
 */
export const PENDING_HOLD_MS = 3 * 86_400_000;

/** Whether an existing claim on the host keeps `userId` from claiming it. */
function holds(existing: BrandedDomainRecord, userId: number, now: Date): boolean {
  if (existing.userId === userId || existing.status !== 'pending') return true;
  return existing.createdAt.getTime() + PENDING_HOLD_MS > now.getTime();
}

/**
 * Claims a domain for the user: unique across the service, and verified to point here. With
 * DOMAIN_CHECK=dns the claim is `pending` (it serves nothing) until the TXT record
 * `_linkqr.<host>` holds its token (issue 29, M6); with `off` it serves at once.
 */
export async function createDomain(
  userId: number,
  input: DomainCreate,
  verify: DomainVerifier,
  hosts: Invalidator,
  ownership: { domainCheck: 'dns' | 'off'; recheckMs: number },
): Promise<BrandedDomainRecord> {
  const domain = normaliseDomain(input.domain);
  const host = hostOf(domain);
  const now = new Date();
  const existing = await BrandedDomain.findOne({ host }).lean();
  if (existing && holds(existing, userId, now)) throw conflict(TAKEN);
  await verify(host);
  if (existing) await BrandedDomain.deleteOne({ id: existing.id, status: 'pending' });
  const proven = ownership.domainCheck === 'off';
  try {
    const doc = await BrandedDomain.create({
      id: await nextId('domains'),
      userId,
      domain,
      host,
      redirectroot: redirectValue(input.redirectroot),
      redirect404: redirectValue(input.redirect404),
      appleAppSiteAssociation: input.appleAppSiteAssociation ?? null,
      assetLinks: input.assetLinks ?? null,
      createdAt: now,
      status: proven ? 'verified' : 'pending',
      verifyToken: newVerifyToken(),
      verifiedAt: proven ? now : null,
      // Off: never checked, until DOMAIN_CHECK=dns schedules it (with a grace period).
      nextCheckAt: proven ? null : new Date(now.getTime() + ownership.recheckMs),
    });
    return doc.toObject();
  } catch (err) {
    if (isDuplicateKeyError(err)) throw conflict(TAKEN);
    throw err;
  } finally {
    // A visitor may have hit the host before it was claimed; that miss must not linger.
    await hosts.invalidate([host]);
  }
}

export async function updateDomain(
  userId: number,
  id: number,
  change: DomainUpdate,
  hosts: Invalidator,
): Promise<void> {
  const set: Record<string, string | null> = {};
  if (change.redirectroot !== undefined) set.redirectroot = redirectValue(change.redirectroot);
  if (change.redirect404 !== undefined) set.redirect404 = redirectValue(change.redirect404);
  if (change.appleAppSiteAssociation !== undefined)
    set.appleAppSiteAssociation = change.appleAppSiteAssociation;
  if (change.assetLinks !== undefined) set.assetLinks = change.assetLinks;
  const doc = await BrandedDomain.findOneAndUpdate(
    { id, userId },
    { $set: set },
    { returnDocument: 'after' },
  ).lean();
  if (!doc) throw notFound(`${LABEL} not found`);
  await hosts.invalidate([doc.host]);
}

/** Deletes the domain record only; links created on it are left to their own module. */
export async function deleteDomain(userId: number, id: number, hosts: Invalidator): Promise<void> {
  const doc = await findOwned(ownedDomains, userId, id, LABEL);
  await deleteOwned(ownedDomains, userId, id, LABEL);
  await hosts.invalidate([doc.host]);
}

/**
 * The caller's branded domain named by its URL (any scheme: the host identifies it), or null.
 * A malformed URL is a 422 from `normaliseDomain`.
 */
export async function findUserDomain(
  userId: number,
  domain: string,
): Promise<{ id: number; domain: string } | null> {
  return findUserDomainByHost(userId, hostOf(normaliseDomain(domain)));
}

/** The caller's branded domain served on a host (any case), or null. */
export async function findUserDomainByHost(
  userId: number,
  host: string,
): Promise<{ id: number; domain: string } | null> {
  const doc = await BrandedDomain.findOne({ userId, host: host.toLowerCase() }).lean();
  return doc ? { id: doc.id, domain: doc.domain } : null;
}

/** The branded domain served on a host (uncached; the host middleware caches it). */
export async function findDomainByHost(host: string): Promise<BrandedDomainContext | null> {
  const doc = await BrandedDomain.findOne({ host: host.toLowerCase() }).lean();
  if (!doc) return null;
  return {
    id: doc.id,
    userId: doc.userId,
    domain: doc.domain,
    redirectroot: doc.redirectroot ?? null,
    redirect404: doc.redirect404 ?? null,
    appleAppSiteAssociation: doc.appleAppSiteAssociation ?? null,
    assetLinks: doc.assetLinks ?? null,
    status: statusOf(doc),
  };
}
