import { unassignEverywhere } from '../channels/channels.service';
import { conflict, notFound, validation } from '../shared/errors/app-error';
import { findOwned, listOwned } from '../shared/db/owned';
import { skipFor } from '../shared/http/pagination';
import type { Visits } from '../visits/visit-recorder';
import { nextId } from '../shared/ids/counter.model';
import { hashPassword } from '../shared/secrets';
import type { Invalidator } from '../shared/cache/shared-cache';
import {
  allocateAlias,
  confirmAlias,
  holdAlias,
  linkAliasScope,
  releaseAliases,
  type AliasClaim,
} from './aliases';
import { behaviourChanges } from './link-behaviour.service';
import { linkCacheKey } from './link-cache';
import { searchKeysOf } from './link-search';
import { findUserDomainByHost } from '../domains/domains.service';
import { isOwnHost, originsOf, parseShort, resolveRequestedDomain } from './link-domains';
import { DEFAULT_DOMAIN_ID, Link, type LinkRecord } from './link.model';
import type { LinkCreate, LinkListQuery, LinkUpdate } from './links.schemas';

/** Tells every API process that these cached aliases changed (see link-cache.ts). */
export type LinkInvalidator = Invalidator;

/** A page of links with their click totals and the origins of the branded domains they live on. */
export interface LinkPage {
  items: LinkRecord[];
  total: number;
  clicks: Map<number, number>;
  origins: Map<number, string>;
}

export function cacheKeysOf(link: Pick<LinkRecord, 'domainId' | 'alias'>): string[] {
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

/** Which of these aliases a link of a deleted branded domain still answers on PUBLIC_URL. */
export async function aliasesHeldByOrphans(aliases: readonly string[]): Promise<Set<string>> {
  if (!aliases.length) return new Set();
  const branded = await Link.find({
    alias: { $in: [...new Set(aliases)] },
    domainId: { $ne: DEFAULT_DOMAIN_ID },
  }).lean<LinkRecord[]>();
  if (!branded.length) return new Set();
  const origins = await originsOf(branded);
  return new Set(branded.filter((l) => !origins.has(l.domainId)).map((l) => l.alias));
}

/**
 * Claims a custom or random alias on a domain (see aliases.ts); 409 when ever used there. The
 * claim is pending until `holdAlias` stores the link.
 */
async function claimAlias(domainId: number, custom: string | undefined): Promise<AliasClaim> {
  if (domainId === DEFAULT_DOMAIN_ID && custom !== undefined) {
    if ((await orphansWithAlias(custom)).length) throw conflict(`alias ${custom} is already taken`);
  }
  const scope = linkAliasScope(domainId);
  const alias = await allocateAlias(scope, custom, {
    refuseReserved: true,
    inUse: async (a) => (await Link.exists({ domainId, alias: a })) !== null,
  });
  return { scope, alias };
}

/** A link with the origins of the branded domain it lives on, as the presenters need it. */
export interface LinkWithOrigins {
  link: LinkRecord;
  origins: Map<number, string>;
}

export async function createLink(
  userId: number,
  input: LinkCreate,
  cache: LinkInvalidator,
  publicUrl: string,
): Promise<LinkWithOrigins> {
  const domain = await resolveRequestedDomain(userId, input.domain, publicUrl);
  const domainId = domain?.id ?? DEFAULT_DOMAIN_ID;
  // Checked before the alias is claimed, so a refused link never uses one up.
  const behaviour = await behaviourChanges(userId, input, null);
  const claim = await claimAlias(domainId, input.custom);
  const { alias } = claim;
  const doc = await holdAlias([claim], async () =>
    Link.create({
      id: await nextId('links'),
      userId,
      domainId,
      alias,
      url: input.url,
      title: input.title ?? '',
      searchKeys: searchKeysOf({ alias, url: input.url, title: input.title }),
      description: input.description ?? '',
      expiry: input.expiry ?? null,
      passwordHash: input.password === undefined ? null : await hashPassword(input.password),
      ...behaviour,
      createdAt: new Date(),
    }),
  );
  const link = doc.toObject<LinkRecord>();
  // Drops a cached "unknown alias" answer.
  await cache.invalidate(cacheKeysOf(link));
  return { link, origins: domain ? new Map([[domain.id, domain.domain]]) : new Map() };
}

type ClickCounts = Pick<Visits, 'getClickCounts'>;

/**
 * The keyset filter of "after this link" in a list ordered by a field, then newest first:
 * the links ranked below the anchor `after` (read once, for its value of the field), by the
 * index `{userId, <field>, id}` whatever the depth. The anchor is the caller's link as it is now:
 * a link whose clicks changed between two pages may move across the boundary, as in any ranking
 * that changes while it is read. An anchor that is not the caller's link (deleted meanwhile) is
 * a 422: list again from the first page.
 */
export async function keysetAfter(
  userId: number,
  after: number,
  field: 'clicks' | 'id',
): Promise<Record<string, unknown>> {
  if (field === 'id') return { id: { $lt: after } };
  const anchor = await Link.findOne({ userId, id: after }).lean<LinkRecord>();
  if (!anchor)
    throw validation(`after: you have no link ${after}; list again without after`, 'after');
  const value = anchor.clicks ?? 0;
  return { $or: [{ clicks: { $lt: value } }, { clicks: value, id: { $lt: after } }] };
}

/**
 * Most clicked first (ties: newest first), a page straight off the {userId, clicks, id} index:
 * each link carries its running total (stats/link-clicks.ts). With `after`, the page after that
 * link (keyset), no skip.
 */
async function listByClicks(userId: number, query: LinkListQuery) {
  const page =
    query.after === undefined
      ? { userId }
      : { userId, ...(await keysetAfter(userId, query.after, 'clicks')) };
  const [total, items] = await Promise.all([
    Link.countDocuments({ userId }),
    Link.find(page)
      .sort({ clicks: -1, id: -1 })
      .skip(query.after === undefined ? skipFor(query) : 0)
      .limit(query.limit)
      .lean<LinkRecord[]>(),
  ]);
  return { items, total };
}

/** One page of the caller's links, newest first (`order=date`) or most clicked first. */
export async function listLinks(
  userId: number,
  query: LinkListQuery,
  visits: ClickCounts,
): Promise<LinkPage> {
  const { items, total } =
    query.order === 'click'
      ? await listByClicks(userId, query)
      : await listOwned(Link, userId, query);
  const [clicks, origins] = await Promise.all([
    visits.getClickCounts(
      'link',
      items.map((l) => l.id),
    ),
    originsOf(items),
  ]);
  return { items, total, clicks, origins };
}

/**
 * The caller's link named by `short`: an alias, or a short URL whose host is PUBLIC_URL's or one
 * of the caller's branded domains. Null when it names none of the caller's links.
 */
export async function findLinkByShort(
  userId: number,
  short: string,
  publicUrl: string,
): Promise<LinkWithOrigins | null> {
  const target = parseShort(short);
  if (!target) return null;
  let domainId: number | undefined;
  if (target.host !== undefined && !isOwnHost(target.host, publicUrl)) {
    const domain = await findUserDomainByHost(userId, target.host);
    if (!domain) return null;
    domainId = domain.id;
  }
  const filter = domainId === undefined ? {} : { domainId };
  const links = await Link.find({ ...filter, userId, alias: target.alias })
    .sort({ id: 1 })
    .lean<LinkRecord[]>();
  const origins = await originsOf(links);
  // On PUBLIC_URL's host: a PUBLIC_URL link, or one whose branded domain is gone (served there).
  const onOwnHost = (l: LinkRecord) => l.domainId === DEFAULT_DOMAIN_ID || !origins.has(l.domainId);
  const link =
    target.host !== undefined && domainId === undefined ? links.find(onOwnHost) : links[0];
  return link ? { link, origins } : null;
}

export async function getLink(userId: number, id: number): Promise<LinkWithOrigins> {
  const link = await findOwned(Link, userId, id, 'Link');
  return { link, origins: await originsOf([link]) };
}

/**
 * Applies an update. A new `custom` alias is claimed for good and the old one stays reserved
 * forever: its visitors get the "not found" page, and it is never handed to another link.
 */
export async function updateLink(
  userId: number,
  id: number,
  input: LinkUpdate,
  cache: LinkInvalidator,
): Promise<LinkWithOrigins> {
  const link = await findOwned(Link, userId, id, 'Link');
  const set: Record<string, unknown> = await behaviourChanges(userId, input, link);
  const claims: AliasClaim[] = [];
  if (input.custom !== undefined && input.custom !== link.alias) {
    try {
      claims.push(await claimAlias(link.domainId, input.custom));
      set.alias = input.custom;
      // A link whose branded domain is gone answers on PUBLIC_URL: the alias must be free there too.
      const origins = await originsOf([link]);
      if (link.domainId !== DEFAULT_DOMAIN_ID && !origins.has(link.domainId)) {
        claims.push(await claimAlias(DEFAULT_DOMAIN_ID, input.custom));
      }
    } catch (err) {
      await releaseAliases(claims);
      throw err;
    }
  }
  if (input.url !== undefined) set.url = input.url;
  // A new destination, or monitoring switched, starts over: checked within one interval.
  const moved = input.url !== undefined && input.url !== link.url;
  if (moved || (input.monitor !== undefined && input.monitor !== Boolean(link.monitor)))
    set.health = null;
  if (input.title !== undefined) set.title = input.title;
  if (input.description !== undefined) set.description = input.description;
  if (input.expiry !== undefined) set.expiry = input.expiry;
  if (set.alias !== undefined || input.url !== undefined || input.title !== undefined) {
    set.searchKeys = searchKeysOf({
      alias: input.custom ?? link.alias,
      url: input.url ?? link.url,
      title: input.title ?? link.title,
    });
  }
  if (input.password !== undefined)
    set.passwordHash = input.password === null ? null : await hashPassword(input.password);
  if (Object.keys(set).length === 0) return { link, origins: await originsOf([link]) };
  const updated = await holdAlias(claims, () =>
    Link.findOneAndUpdate(
      { id, userId },
      { $set: set },
      { returnDocument: 'after' },
    ).lean<LinkRecord>(),
  );
  if (!updated) throw notFound('Link not found');
  await cache.invalidate([...cacheKeysOf(link), ...cacheKeysOf(updated)]);
  return { link: updated, origins: await originsOf([updated]) };
}

/** Deletes the link with its visits; its alias stays reserved, and it leaves its channels. */
export async function deleteLink(
  userId: number,
  id: number,
  cache: LinkInvalidator,
  visits: Pick<Visits, 'deleteVisits'>,
): Promise<void> {
  const link = await findOwned(Link, userId, id, 'Link');
  // A claim left pending by a crash would let the alias be reused once the link is gone.
  await confirmAlias(linkAliasScope(link.domainId), link.alias);
  await Link.deleteOne({ id, userId });
  await cache.invalidate(cacheKeysOf(link));
  await unassignEverywhere('links', id);
  await visits.deleteVisits({ kind: 'link', id, userId });
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
