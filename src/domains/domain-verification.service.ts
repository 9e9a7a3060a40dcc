import type { Logger } from 'pino';
import type { Invalidator } from '../shared/cache/shared-cache';
import { validation } from '../shared/errors/app-error';
import { findOwned } from '../shared/db/owned';
import type { WebhookEvents } from '../webhooks/webhooks.jobs';
import type { DomainResolver } from './domain-check';
import { BrandedDomain, type BrandedDomainRecord } from './domain.model';
import {
  checkOwnership,
  newVerifyToken,
  ownershipRecordName,
  presentVerification,
  statusOf,
  type OwnershipCheck,
} from './domain-ownership';
import type { Model } from 'mongoose';

const ownedDomains = BrandedDomain as Model<BrandedDomainRecord>;

/**
 * Domains claimed before ownership tokens (and any claimed with DOMAIN_CHECK=off, once it is
 * turned on) keep serving this long after the worker first gives them a token, so their owners
 * have time to publish it before a missing record suspends them.
 */
export const LEGACY_GRACE_MS = 14 * 86_400_000;

export interface OwnershipContext {
  resolver: Pick<DomainResolver, 'resolveTxt'>;
  domainCheck: 'dns' | 'off';
  /** How often a domain's record is checked again. */
  recheckMs: number;
  hosts: Invalidator;
  events?: Pick<WebhookEvents, 'emit'> | undefined;
}

function eventData(domain: BrandedDomainRecord, reason: string) {
  return {
    id: domain.id,
    domain: domain.domain,
    reason,
    verification: presentVerification(domain),
  };
}

function missingMessage(host: string, token: string, check: OwnershipCheck): string {
  const why = check === 'unknown' ? 'DNS did not answer' : 'not found';
  return `The ownership record of ${host} was not checked true (${why}): create a TXT record named ${ownershipRecordName(host)} with the value ${token}, then verify again`;
}

/** Sets a domain verified (serving) and tells its owner when that is news. */
async function markVerified(domain: BrandedDomainRecord, ctx: OwnershipContext, now: Date) {
  const was = statusOf(domain);
  const updated = await BrandedDomain.findOneAndUpdate(
    { id: domain.id },
    {
      $set: {
        status: 'verified',
        verifiedAt: was === 'verified' && domain.verifiedAt ? domain.verifiedAt : now,
        checkedAt: now,
        suspendedAt: null,
        graceUntil: null,
        nextCheckAt: new Date(now.getTime() + ctx.recheckMs),
      },
    },
    { returnDocument: 'after' },
  ).lean();
  if (!updated) return null;
  if (was !== 'verified') {
    await ctx.hosts.invalidate([domain.host]);
    await ctx.events?.emit(domain.userId, 'domain.verified', eventData(updated, 'record found'));
  }
  return updated;
}

/**
 * `POST /api/domain/:id/verify`: looks the TXT record up now. A pending or suspended domain whose
 * record holds its token starts serving; otherwise a 422 says which record to create. With
 * DOMAIN_CHECK=off there is nothing to check: the domain is verified.
 */
export async function verifyDomainOwnership(
  userId: number,
  id: number,
  ctx: OwnershipContext,
  now = new Date(),
): Promise<BrandedDomainRecord> {
  const domain = await findOwned(ownedDomains, userId, id, 'Domain');
  let token = domain.verifyToken;
  if (!token) {
    token = newVerifyToken();
    await BrandedDomain.updateOne({ id, verifyToken: null }, { $set: { verifyToken: token } });
    domain.verifyToken = token;
  }
  const check =
    ctx.domainCheck === 'off' ? 'found' : await checkOwnership(ctx.resolver, domain.host, token);
  if (check === 'found') return (await markVerified(domain, ctx, now)) ?? domain;
  await BrandedDomain.updateOne({ id }, { $set: { checkedAt: now } });
  throw validation(missingMessage(domain.host, token, check), 'domain');
}

/** Gives a token (and a grace period) to the domains the sweep has never scheduled. */
async function scheduleUnscheduled(now: Date): Promise<void> {
  const unscheduled = await BrandedDomain.find({ nextCheckAt: null }).limit(500).lean();
  for (const domain of unscheduled) {
    await BrandedDomain.updateOne(
      { id: domain.id, nextCheckAt: null },
      {
        $set: {
          verifyToken: domain.verifyToken ?? newVerifyToken(),
          status: statusOf(domain),
          graceUntil:
            statusOf(domain) === 'verified' ? new Date(now.getTime() + LEGACY_GRACE_MS) : null,
          nextCheckAt: now,
        },
      },
    );
  }
}

/** The next domain due for a check, taken by pushing its next check on (one worker per domain). */
async function takeDue(now: Date, recheckMs: number) {
  return BrandedDomain.findOneAndUpdate(
    { nextCheckAt: { $lte: now } },
    { $set: { nextCheckAt: new Date(now.getTime() + recheckMs) } },
    { sort: { nextCheckAt: 1 }, returnDocument: 'before' },
  ).lean();
}

export interface RecheckResult {
  checked: number;
  verified: number;
  suspended: number;
}

/**
 * One pass of the worker's re-verification: every domain whose check is due has its TXT record
 * looked up. A verified domain whose record is gone (past any grace) is suspended: its host stops
 * serving and its owner's webhooks get `domain.suspended`; a pending or suspended domain whose
 * record appears starts serving (`domain.verified`). A DNS failure changes nothing.
 */
export async function recheckDomains(
  ctx: OwnershipContext & { logger: Logger },
  now = new Date(),
  batch = 200,
): Promise<RecheckResult> {
  const result: RecheckResult = { checked: 0, verified: 0, suspended: 0 };
  if (ctx.domainCheck === 'off') return result;
  await scheduleUnscheduled(now);
  for (let i = 0; i < batch; i += 1) {
    const domain = await takeDue(now, ctx.recheckMs);
    if (!domain) break;
    const token = domain.verifyToken ?? newVerifyToken();
    const check = await checkOwnership(ctx.resolver, domain.host, token);
    if (check === 'unknown') continue;
    result.checked += 1;
    const status = statusOf(domain);
    if (check === 'found') {
      if (status !== 'verified') result.verified += 1;
      await markVerified(domain, ctx, now);
      continue;
    }
    const inGrace = !!domain.graceUntil && domain.graceUntil.getTime() > now.getTime();
    if (status !== 'verified' || inGrace) {
      await BrandedDomain.updateOne({ id: domain.id }, { $set: { checkedAt: now } });
      continue;
    }
    const suspended = await BrandedDomain.findOneAndUpdate(
      { id: domain.id, status: domain.status },
      { $set: { status: 'suspended', suspendedAt: now, checkedAt: now } },
      { returnDocument: 'after' },
    ).lean();
    if (!suspended) continue;
    result.suspended += 1;
    await ctx.hosts.invalidate([domain.host]);
    ctx.logger.warn({ domainId: domain.id, host: domain.host }, 'branded domain suspended');
    await ctx.events?.emit(
      domain.userId,
      'domain.suspended',
      eventData(suspended, 'record missing'),
    );
  }
  return result;
}
