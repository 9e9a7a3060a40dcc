import { getJson } from '../source-http';
import type { SourceAdapter, SourceContext, SourceItem } from './source';
import { asString, requireKey, requireUrl, sourceDate } from './source';

const PAGE = 50;

interface KuttLink {
  id?: string;
  address?: string;
  target?: string;
  description?: string | null;
  password?: boolean;
  expire_in?: string | null;
  created_at?: string;
  link?: string;
  domain?: string | null;
}

interface KuttPage {
  total?: number;
  data?: KuttLink[];
}

/** Kutt's API v2 (`/api/v2/links`, `X-API-KEY`, `skip`/`limit`). */
export function kuttSource(ctx: SourceContext): SourceAdapter {
  const base = requireUrl(ctx, 'kutt');
  return {
    origin: `kutt ${base}`,
    async *items(): AsyncGenerator<SourceItem> {
      const key = requireKey(ctx, 'kutt');
      // A server may answer fewer than asked: the next page starts after what came.
      for (let skip = 0; ;) {
        const url = new URL(`${base}/api/v2/links`);
        url.searchParams.set('skip', String(skip));
        url.searchParams.set('limit', String(PAGE));
        const body = (await getJson(url, { 'X-API-KEY': key }, ctx.http)) as KuttPage;
        const data = body.data ?? [];
        if (typeof body.total === 'number') ctx.reportTotal(body.total);
        for (const l of data) {
          const alias = asString(l.address);
          if (!alias || !l.target) {
            yield { kind: 'bad', item: l.id ?? '?', message: 'link without address or target' };
            continue;
          }
          yield {
            kind: 'link',
            sourceId: l.id ?? alias,
            url: l.target,
            alias,
            domain: l.domain ?? undefined,
            description: l.description ?? undefined,
            expiry: sourceDate(l.expire_in) ?? null,
            createdAt: sourceDate(l.created_at),
            notes: l.password
              ? [
                  'password not carried: Kutt cannot give it back; the link was imported without one',
                ]
              : [],
          };
        }
        skip += data.length;
        if (!data.length || skip >= (body.total ?? Infinity)) return;
      }
    },
  };
}
