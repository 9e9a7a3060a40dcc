import { getJson } from '../source-http';
import type { SourceAdapter, SourceContext, SourceItem } from './source';
import { asString, requireKey, requireUrl, sourceDate } from './source';

const PAGE = 50;

interface ShlinkShortUrl {
  shortCode?: string;
  shortUrl?: string;
  longUrl?: string;
  dateCreated?: string;
  title?: string | null;
  tags?: string[];
  domain?: string | null;
  meta?: { validSince?: string | null; validUntil?: string | null; maxVisits?: number | null };
}

interface ShlinkPage {
  shortUrls?: {
    data?: ShlinkShortUrl[];
    pagination?: { currentPage?: number; pagesCount?: number; totalItems?: number };
  };
}

/**
 * What linkqr cannot hold of a Shlink short URL, said in the report instead of dropped silently:
 * a link has an end (`expiry`) but no start, so `validSince` is the one field left behind.
 */
function notesOf(s: ShlinkShortUrl): string[] {
  const notes: string[] = [];
  if (s.meta?.validSince)
    notes.push(
      `validSince ${s.meta.validSince} skipped: linkqr links have no start date, this one is live from its import`,
    );
  return notes;
}

/** Shlink's `maxVisits` is linkqr's click limit (`maxclicks`), stored as `maxClicks`. */
function maxClicksOf(s: ShlinkShortUrl): { maxClicks: number } | undefined {
  const max = s.meta?.maxVisits;
  return typeof max === 'number' && Number.isInteger(max) && max >= 1
    ? { maxClicks: max }
    : undefined;
}

/** Shlink's REST API v3 (`/rest/v3/short-urls`, `X-Api-Key`), page by page. */
export function shlinkSource(ctx: SourceContext): SourceAdapter {
  const base = requireUrl(ctx, 'shlink');
  return {
    origin: `shlink ${base}`,
    async *items(): AsyncGenerator<SourceItem> {
      const key = requireKey(ctx, 'shlink');
      for (let page = 1; ; page += 1) {
        const url = new URL(`${base}/rest/v3/short-urls`);
        url.searchParams.set('page', String(page));
        url.searchParams.set('itemsPerPage', String(PAGE));
        const body = (await getJson(url, { 'X-Api-Key': key }, ctx.http)) as ShlinkPage;
        const data = body.shortUrls?.data ?? [];
        const pagination = body.shortUrls?.pagination ?? {};
        if (typeof pagination.totalItems === 'number') ctx.reportTotal(pagination.totalItems);
        for (const s of data) {
          const alias = asString(s.shortCode);
          if (!alias || !s.longUrl) {
            yield {
              kind: 'bad',
              item: alias ?? '?',
              message: 'short URL without shortCode or longUrl',
            };
            continue;
          }
          const tags = (s.tags ?? []).filter((t) => typeof t === 'string');
          yield {
            kind: 'link',
            sourceId: `${s.domain ?? ''}/${alias}`,
            url: s.longUrl,
            alias,
            domain: s.domain ?? undefined,
            title: s.title ?? undefined,
            description: tags.length ? `tags: ${tags.join(', ')}` : undefined,
            expiry: sourceDate(s.meta?.validUntil) ?? null,
            createdAt: sourceDate(s.dateCreated),
            fields: maxClicksOf(s),
            notes: notesOf(s),
          };
        }
        const last = pagination.pagesCount ?? page;
        if (!data.length || page >= last) return;
      }
    },
  };
}
