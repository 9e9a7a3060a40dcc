import { linkParameters, loadVisitorBehaviour } from '../links/link-behaviour.service';
import type { LinkTarget } from '../links/link-cache';
import type { LinkRecord } from '../links/link.model';
import { withParameters } from '../links/link-targeting';
import { findLinkTarget } from '../links/links.service';
import { isBeingDeleted } from '../users/user-deletion.model';

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
]);

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
export function isDirectRedirect(link: LinkRecord): boolean {
  for (const [field, value] of Object.entries(link)) {
    if (PLAIN_FIELDS.has(field) || isUnset(value)) continue;
    if (field === 'type' && value === 'direct') continue;
    return false;
  }
  return true;
}

/** The link's URL carries its `parameters` already, so a direct link with them stays a bare 302. */
export function toLinkTarget(link: LinkRecord | null): LinkTarget | null {
  if (!link) return null;
  return {
    id: link.id,
    url: headerSafe(withParameters(link.url, linkParameters(link))),
    expiresAt: link.expiry ? link.expiry.getTime() : null,
    passwordHash: link.passwordHash ?? null,
    direct: isDirectRedirect(link),
  };
}

/** What the link cache holds for an alias on a domain: the target and its visitor behaviour. */
export async function loadLinkTarget(domainId: number, alias: string): Promise<LinkTarget | null> {
  const found = await findLinkTarget(domainId, alias);
  // A user whose deletion has not finished yet: their links are gone already.
  const link = found && !(await isBeingDeleted(found.userId)) ? found : null;
  const target = toLinkTarget(link);
  if (!link || !target) return null;
  const behaviour = await loadVisitorBehaviour(link);
  return { ...target, behaviour, direct: target.direct && !behaviour };
}
