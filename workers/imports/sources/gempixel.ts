import { getJson } from '../source-http';
import type { SourceAdapter, SourceContext, SourceItem } from './source';
import { asString, requireKey, requireUrl, sourceDate } from './source';

const PAGE = 100;

interface GemPixelUrl {
  id?: number | string;
  alias?: string;
  shorturl?: string;
  longurl?: string;
  title?: string | null;
  description?: string | null;
  date?: string;
}

interface GemPixelPage {
  data?: { currentpage?: number; maxpage?: number; result?: number; urls?: GemPixelUrl[] };
}

function hostOf(shorturl: string | undefined): string | undefined {
  try {
    return shorturl ? new URL(shorturl).host : undefined;
  } catch {
    return undefined;
  }
}

/** GemPixel writes `YYYY-MM-DD HH:MM:SS` in UTC. */
function gemPixelDate(date: string | undefined): string | undefined {
  return date && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(date)
    ? `${date.replace(' ', 'T')}Z`
    : date;
}

/** Any GemPixel-API service, linkqr included: `/api/urls` page by page (`Authorization: Bearer`). */
export function gempixelSource(ctx: SourceContext): SourceAdapter {
  const base = requireUrl(ctx, 'gempixel');
  return {
    origin: `gempixel ${base}`,
    async *items(): AsyncGenerator<SourceItem> {
      const headers = { Authorization: `Bearer ${requireKey(ctx, 'gempixel')}` };
      for (let page = 1; ; page += 1) {
        const url = new URL(`${base}/api/urls`);
        url.searchParams.set('limit', String(PAGE));
        url.searchParams.set('page', String(page));
        url.searchParams.set('order', 'date');
        const body = (await getJson(url, headers, ctx.http)) as GemPixelPage;
        const data = body.data ?? {};
        if (typeof data.result === 'number') ctx.reportTotal(data.result);
        const urls = data.urls ?? [];
        for (const u of urls) {
          const id = asString(u.id);
          const alias = asString(u.alias);
          if (!id || !u.longurl) {
            yield { kind: 'bad', item: id ?? '?', message: 'url without id or longurl' };
            continue;
          }
          yield {
            kind: 'link',
            sourceId: id,
            url: u.longurl,
            alias,
            domain: hostOf(u.shorturl),
            title: u.title ?? undefined,
            description: u.description ?? undefined,
            createdAt: sourceDate(gemPixelDate(u.date)),
          };
        }
        if (!urls.length || page >= (data.maxpage ?? page)) return;
      }
    },
  };
}
