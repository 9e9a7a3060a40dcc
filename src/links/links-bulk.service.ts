import { AppError } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { hashPassword } from '../shared/secrets';
import { settle, type BulkOutcome } from '../shared/http/bulk';
import {
  aliasTaken,
  allocateAliases,
  holdAlias,
  linkAliasScope,
  type AliasRequest,
} from './aliases';
import { behaviourChanges } from './link-behaviour.service';
import { resolveRequestedDomain, type LinkDomain } from './link-domains';
import { DEFAULT_DOMAIN_ID, Link, type LinkRecord } from './link.model';
import { searchKeysOf } from './link-search';
import type { LinkCreate } from './links.schemas';
import { aliasesHeldByOrphans, cacheKeysOf, type LinkInvalidator } from './links.service';

/**
 * A link to insert, already checked: its domain, the alias it wants and every other field of the
 * document (url, title, behaviour, passwordHash, createdAt...). Importers build these too.
 */
export interface LinkDraft {
  domainId: number;
  alias: AliasRequest;
  fields: Record<string, unknown>;
}

/** A link as inserted; `renamedFrom` when its custom alias was taken and a fresh one given. */
export interface InsertedLink {
  link: LinkRecord;
  renamedFrom?: string;
}

/** Custom aliases on PUBLIC_URL that an orphaned branded link still answers are taken too. */
async function withOrphansTaken(drafts: readonly LinkDraft[]) {
  const customs = drafts.flatMap((d) =>
    d.domainId === DEFAULT_DOMAIN_ID && d.alias.custom !== undefined ? [d.alias.custom] : [],
  );
  const held = await aliasesHeldByOrphans(customs);
  return drafts.map((d): AliasRequest | AppError => {
    const custom = d.alias.custom;
    if (d.domainId !== DEFAULT_DOMAIN_ID || custom === undefined || !held.has(custom))
      return d.alias;
    return d.alias.renameIfTaken ? { renameIfTaken: true } : aliasTaken(custom);
  });
}

/**
 * Inserts many links with a constant number of database round trips whatever their number: the
 * orphan check, one reservation write per domain, the id counter and one insert. Each answer is
 * the link or why that one could not be made; the others are made regardless.
 */
export async function insertLinks(
  userId: number,
  drafts: readonly LinkDraft[],
  cache: LinkInvalidator,
): Promise<Array<InsertedLink | AppError>> {
  const requests = await withOrphansTaken(drafts);
  const aliases: Array<string | AppError> = requests.map((r) => (r instanceof AppError ? r : ''));
  const byDomain = new Map<number, number[]>();
  drafts.forEach((d, i) => {
    if (requests[i] instanceof AppError) return;
    byDomain.set(d.domainId, [...(byDomain.get(d.domainId) ?? []), i]);
  });
  await Promise.all(
    [...byDomain].map(async ([domainId, indexes]) => {
      const wanted = indexes.map((i) => requests[i] as AliasRequest);
      const got = await allocateAliases(linkAliasScope(domainId), wanted, {
        refuseReserved: true,
      });
      indexes.forEach((i, k) => (aliases[i] = got[k] as string | AppError));
    }),
  );
  const making = drafts.flatMap((d, i) => {
    const alias = aliases[i];
    return typeof alias === 'string' ? [{ i, draft: d, alias }] : [];
  });
  // Callers that ask together share one counter increment (see counter.model.ts).
  const ids = await Promise.all(making.map(() => nextId('links')));
  const createdAt = new Date();
  const docs = making.map(({ draft, alias }, k) => ({
    createdAt,
    ...draft.fields,
    id: ids[k],
    userId,
    domainId: draft.domainId,
    alias,
    searchKeys: searchKeysOf({
      alias,
      url: String(draft.fields.url ?? ''),
      title: typeof draft.fields.title === 'string' ? draft.fields.title : '',
    }),
  }));
  const claims = making.map(({ draft, alias }) => ({
    scope: linkAliasScope(draft.domainId),
    alias,
  }));
  const inserted = docs.length ? await holdAlias(claims, () => Link.insertMany(docs)) : [];
  const links = inserted.map((d) => d.toObject<LinkRecord>());
  await cache.invalidate(links.flatMap((l) => cacheKeysOf(l)));
  const answers: Array<InsertedLink | AppError> = aliases.map((a) =>
    a instanceof AppError ? a : aliasTaken(''),
  );
  making.forEach(({ i, draft, alias }, k) => {
    const link = links[k] as LinkRecord;
    const custom = draft.alias.custom;
    answers[i] =
      custom !== undefined && custom !== alias ? { link, renamedFrom: custom } : { link };
  });
  return answers;
}

/** The branded domains named by a batch of url/add bodies, each looked up once. */
async function domainsOf(userId: number, inputs: readonly LinkCreate[], publicUrl: string) {
  const names = [...new Set(inputs.flatMap((i) => (i.domain === undefined ? [] : [i.domain])))];
  const found = new Map<string, LinkDomain | null | AppError>();
  for (const name of names)
    found.set(name, await settle(resolveRequestedDomain(userId, name, publicUrl)));
  return found;
}

/** `url/add` for many bodies at once (POST /api/urls/bulk): one outcome per input, in order. */
export async function createLinks(
  userId: number,
  inputs: readonly LinkCreate[],
  cache: LinkInvalidator,
  publicUrl: string,
): Promise<Array<BulkOutcome<{ link: LinkRecord; origins: Map<number, string> }>>> {
  const domains = await domainsOf(userId, inputs, publicUrl);
  const prepared = await Promise.all(
    inputs.map(async (input) => {
      const domain = input.domain === undefined ? null : (domains.get(input.domain) ?? null);
      if (domain instanceof AppError) return domain;
      const behaviour = await settle(behaviourChanges(userId, input, null));
      if (behaviour instanceof AppError) return behaviour;
      const draft: LinkDraft = {
        domainId: domain?.id ?? DEFAULT_DOMAIN_ID,
        alias: input.custom === undefined ? {} : { custom: input.custom },
        fields: {
          url: input.url,
          title: input.title ?? '',
          description: input.description ?? '',
          expiry: input.expiry ?? null,
          passwordHash: input.password === undefined ? null : await hashPassword(input.password),
          ...behaviour,
        },
      };
      return { draft, origins: new Map(domain ? [[domain.id, domain.domain]] : []) };
    }),
  );
  const ready = prepared.flatMap((p) => (p instanceof AppError ? [] : [p]));
  const made = await insertLinks(
    userId,
    ready.map((r) => r.draft),
    cache,
  );
  let k = 0;
  return prepared.map((p) => {
    if (p instanceof AppError) return p;
    const outcome = made[k++] as InsertedLink | AppError;
    return outcome instanceof AppError ? outcome : { link: outcome.link, origins: p.origins };
  });
}
