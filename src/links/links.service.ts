import { unassignEverywhere } from '../channels/channels.service';
import { conflict } from '../shared/errors/app-error';
import { findOwned, listOwned } from '../shared/db/owned';
import type { PageQuery } from '../shared/http/pagination';
import type { Visits } from '../shared/visits/visit-recorder';
import { nextId } from '../shared/ids/counter.model';
import { hashPassword } from '../shared/secrets';
import type { Invalidator } from '../shared/cache/shared-cache';
import { allocateAlias, linkAliasScope } from './aliases';
import { linkCacheKey } from './link-cache';
import { originsOf, resolveRequestedDomain } from './link-domains';
import { DEFAULT_DOMAIN_ID, Link, type LinkRecord } from './link.model';
import type { LinkCreate, LinkUpdate } from './links.schemas';

/** Tells every API process that these cached aliases changed (see link-cache.ts). */
export type LinkInvalidator = Invalidator;

/** A page of links with the origins of the branded domains they live on. */
export interface LinkPage {
  items: LinkRecord[];
  total: number;
  origins: Map<number, string>;
}

function cacheKeysOf(link: Pick<LinkRecord, 'domainId' | 'alias'>): string[] {
  const keys = [linkCacheKey(link.domainId, link.alias)];
  // A branded link also answers on PUBLIC_URL once its domain is gone (see findLinkTarget).
  if (link.domainId !== DEFAULT_DOMAIN_ID) keys.push(linkCacheKey(DEFAULT_DOMAIN_ID, link.alias));
  return keys;
}

/** Links of deleted branded domains, holding this alias, oldest first. */
async function orphansWithAlias(alias: string): Promise<LinkRecord[]> {
  const branded = await Link.find({ alias, domainId: { $ne: DEFAULT_DOMAIN_ID } })
    .sort({ id: 1 })
    .lean<LinkRecord[]>();
  if (!branded.length) return [];
  const origins = await originsOf(branded);
  return branded.filter((l) => !origins.has(l.domainId));
}

export async function createLink(
  userId: number,
  input: LinkCreate,
  cache: LinkInvalidator,
): Promise<{ link: LinkRecord; origins: Map<number, string> }> {
  const domain = await resolveRequestedDomain(userId, input.domain);
  const domainId = domain?.id ?? DEFAULT_DOMAIN_ID;
  if (domainId === DEFAULT_DOMAIN_ID && input.custom !== undefined) {
    if ((await orphansWithAlias(input.custom)).length)
      throw conflict(`alias ${input.custom} is already taken`);
  }
  const alias = await allocateAlias(linkAliasScope(domainId), input.custom, {
    refuseReserved: true,
  });
  const doc = await Link.create({
    id: await nextId('links'),
    userId,
    domainId,
    alias,
    url: input.url,
    title: input.title ?? '',
    expiry: input.expiry ?? null,
    passwordHash: input.password === undefined ? null : await hashPassword(input.password),
    createdAt: new Date(),
  });
  const link = doc.toObject<LinkRecord>();
  // Drops a cached "unknown alias" answer.
  await cache.invalidate(cacheKeysOf(link));
  return { link, origins: domain ? new Map([[domain.id, domain.domain]]) : new Map() };
}

export async function listLinks(userId: number, query: PageQuery): Promise<LinkPage> {
  const { items, total } = await listOwned(Link, userId, query);
  return { items, total, origins: await originsOf(items) };
}

export async function getLink(
  userId: number,
  id: number,
): Promise<{ link: LinkRecord; origins: Map<number, string> }> {
  const link = await findOwned(Link, userId, id, 'Link');
  return { link, origins: await originsOf([link]) };
}

export async function updateLink(
  userId: number,
  id: number,
  input: LinkUpdate,
  cache: LinkInvalidator,
): Promise<void> {
  const link = await findOwned(Link, userId, id, 'Link');
  const set: Record<string, unknown> = {};
  if (input.url !== undefined) set.url = input.url;
  if (input.title !== undefined) set.title = input.title;
  if (input.expiry !== undefined) set.expiry = input.expiry;
  if (input.password !== undefined)
    set.passwordHash = input.password === null ? null : await hashPassword(input.password);
  await Link.updateOne({ id, userId }, { $set: set });
  await cache.invalidate(cacheKeysOf(link));
}

/** Deletes the link with its visits; its alias stays reserved, and it leaves its channels. */
export async function deleteLink(
  userId: number,
  id: number,
  cache: LinkInvalidator,
  visits: Pick<Visits, 'deleteVisits'>,
): Promise<void> {
  const link = await findOwned(Link, userId, id, 'Link');
  await Link.deleteOne({ id, userId });
  await cache.invalidate(cacheKeysOf(link));
  await unassignEverywhere('links', id);
  await visits.deleteVisits({ kind: 'link', id });
}

/**
 * The link an alias names on a domain. On PUBLIC_URL, a link whose branded domain was deleted
 * keeps answering, unless a PUBLIC_URL link has the alias.
 */
export async function findLinkTarget(domainId: number, alias: string): Promise<LinkRecord | null> {
  const own = await Link.findOne({ domainId, alias }).lean<LinkRecord>();
  if (own || domainId !== DEFAULT_DOMAIN_ID) return own;
  return (await orphansWithAlias(alias))[0] ?? null;
}
