import { linkParameters, loadVisitorBehaviour } from '../links/link-behaviour.service';
import type { LinkTarget } from '../links/link-cache';
import type { LinkRecord } from '../links/link.model';
import { withParameters } from '../links/link-parameters';
import { findLinkTarget } from '../links/links.service';
import { isBeingDeleted } from '../users/user-deletion.model';
import type { Visits } from '../visits/visit-recorder';
import { compileRules, pickRule } from './rules/rules';
import { isAppUrl, type RuleInput } from './rules/rules.schemas';
import { factsOf, type VisitorFacts } from './rules/visitor-facts';
import { variantFor, variantTag, type CachedVariant } from './variants';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Custom aliases are 3-64 of these characters and generated ones 7: nothing else is looked up. */
export const ALIAS_SHAPE = /^[A-Za-z0-9_-]{3,64}$/;

export type RedirectDecision =
  { kind: 'redirect'; url: string } | { kind: 'gone' } | { kind: 'password' };

/** What a visitor gets for a resolved link at `now`; expiry wins over the password form. */
export function decideRedirect(target: LinkTarget, now: number): RedirectDecision {
  if (target.expiresAt !== null && now >= target.expiresAt) return { kind: 'gone' };
  if (target.passwordHash) return { kind: 'password' };
  return { kind: 'redirect', url: target.url };
}

/**
 * Long URLs were validated as RFC 3986 URIs, so they are already safe as a Location header; the
 * encoding is a guard for records written by other means.
 */
function headerSafe(url: string): string {
  return /^[\x21-\x7e]+$/.test(url) ? url : encodeURI(url);
}

/** Fields that never change what a visitor gets beyond `302 Location: url`. */
const PLAIN_FIELDS = new Set([
  '_id',
  'id',
  'userId',
  'domainId',
  'alias',
  'url',
  'title',
  'description',
  // Already folded into the target's URL.
  'parameters',
  'expiry',
  'campaignId',
  // Counted and searched, never shown to a visitor.
  'clicks',
  'searchKeys',
  'createdAt',
  'updatedAt',
  // Monitoring: a broken destination's fallback is folded into the target's URL.
  'monitor',
  'fallback',
  'health',
]);

/** Compiled into the target's rules, which the fast path evaluates itself. */
const RULE_FIELDS = new Set(['rules', 'geotarget', 'devicetarget', 'languagetarget']);

function isUnset(value: unknown): boolean {
  if (value === null || value === undefined || value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && !(value instanceof Date) && Object.keys(value).length === 0;
}

/**
 * Whether every visitor simply gets a 302. Judged on the stored record, field by field, so a
 * behaviour added later (a link type, pixels, targeting, a splash page...) keeps its links off
 * the fast path until this list is told that the field is harmless.
 */
export function isDirectRedirect(link: LinkRecord, withRules = true): boolean {
  for (const [field, value] of Object.entries(link)) {
    if (PLAIN_FIELDS.has(field) || isUnset(value)) continue;
    if (withRules && RULE_FIELDS.has(field)) continue;
    if (field === 'type' && value === 'direct') continue;
    return false;
  }
  return true;
}

/** Whether every visitor of the link gets `302 Location: url`, rules or no rules. */
export function isBareRedirect(link: LinkRecord): boolean {
  return isDirectRedirect(link, false);
}

/** `rules` then GemPixel's maps, every destination with the link's parameters appended. */
function rulesOf(link: LinkRecord) {
  const params = linkParameters(link);
  const url = (target: string | null | undefined) =>
    headerSafe(withParameters(target ?? '', params));
  return compileRules(
    (link.rules ?? []).map((r) => ({ url: url(r.url), when: r.when as RuleInput['when'] })),
    {
      geotarget: (link.geotarget ?? []).map((r) => ({
        location: r.location ?? '',
        url: url(r.link),
      })),
      devicetarget: (link.devicetarget ?? []).map((r) => ({
        device: r.device ?? '',
        url: url(r.link),
      })),
      languagetarget: (link.languagetarget ?? []).map((r) => ({
        language: r.language ?? '',
        url: url(r.link),
      })),
    },
  );
}

function variantsOf(link: LinkRecord): CachedVariant[] | null {
  const variants = link.variants ?? [];
  if (!variants.length) return null;
  const params = linkParameters(link);
  return variants.map((v) => ({
    url: headerSafe(withParameters(v.url ?? '', params)),
    label: v.url ?? '',
    weight: v.weight ?? 0,
    tag: variantTag(v.url ?? ''),
  }));
}

/** The link's destination, or its fallback while monitoring finds the destination broken. */
function destinationUrl(link: LinkRecord): string {
  if (link.monitor && link.fallback && link.health?.status === 'broken') return link.fallback;
  return link.url;
}

/** The link's URL carries its `parameters` already, so a direct link with them stays a bare 302. */
export function toLinkTarget(link: LinkRecord | null): LinkTarget | null {
  if (!link) return null;
  return {
    id: link.id,
    url: headerSafe(withParameters(destinationUrl(link), linkParameters(link))),
    expiresAt: link.expiry ? link.expiry.getTime() : null,
    passwordHash: link.passwordHash ?? null,
    direct: isDirectRedirect(link),
    rules: rulesOf(link),
    limit: null,
    variants: variantsOf(link),
    expiredUrl: link.expiredUrl ? headerSafe(link.expiredUrl) : null,
  };
}

/** Where this visitor goes: the first matching rule's destination, else the link's URL. */
export function destinationOf(target: LinkTarget, visitor: () => VisitorFacts): string {
  return target.rules ? (pickRule(target.rules, visitor()) ?? target.url) : target.url;
}

export { isAppUrl };

/** A visitor's destination and, when an A/B variant chose it, that variant's label. */
export interface Destination {
  url: string;
  variant?: string;
}

/**
 * Rules first; when none matches, the link's A/B variant for this visitor (kept by a cookie);
 * else the link's URL.
 */
export function chooseDestination(
  req: IncomingMessage & { ip?: string | undefined; url: string },
  res: ServerResponse,
  target: LinkTarget,
  countryHeader: string | undefined,
): Destination {
  const now = Date.now();
  const ruled = target.rules ? pickRule(target.rules, factsOf(req, countryHeader, now)) : null;
  if (ruled !== null) return { url: ruled };
  if (!target.variants) return { url: target.url };
  const variant = variantFor(req, res, target.id, target.variants);
  return { url: variant.url, variant: variant.label };
}

/** The stored clicks of a link (the visits module's count). */
export type StoredClicks = (linkId: number) => Promise<number>;

export function storedClicksOf(visits: Pick<Visits, 'getClickCounts'>): StoredClicks {
  return async (id) => (await visits.getClickCounts('link', [id])).get(id) ?? 0;
}

/**
 * What the link cache holds for an alias on a domain: the target, its visitor behaviour and,
 * for a link with `maxclicks`, the clicks stored so far.
 */
export async function loadLinkTarget(
  domainId: number,
  alias: string,
  storedClicks: StoredClicks,
): Promise<LinkTarget | null> {
  const found = await findLinkTarget(domainId, alias);
  // A user whose deletion has not finished yet: their links are gone already.
  const link = found && !(await isBeingDeleted(found.userId)) ? found : null;
  const target = toLinkTarget(link);
  if (!link || !target) return null;
  const [behaviour, stored] = await Promise.all([
    loadVisitorBehaviour(link),
    link.maxClicks ? storedClicks(link.id) : 0,
  ]);
  const limit = link.maxClicks ? { max: link.maxClicks, stored } : null;
  return { ...target, behaviour, limit, direct: target.direct && !behaviour };
}
