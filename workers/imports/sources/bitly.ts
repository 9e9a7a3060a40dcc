import { SourceError, getJson } from '../source-http';
import type { SourceAdapter, SourceContext, SourceItem } from './source';
import { requireKey, requireUrl, sourceDate } from './source';

interface Bitlink {
  id?: string;
  link?: string;
  custom_bitlinks?: string[];
  long_url?: string;
  title?: string | null;
  created_at?: string;
  tags?: string[];
}

interface BitlinksPage {
  links?: Bitlink[];
  pagination?: { total?: number; next?: string };
}

/** `bit.ly/spring` or `https://bit.ly/spring` -> host and back-half. */
function split(link: string): { domain?: string; alias?: string } {
  try {
    const url = new URL(/^[a-z]+:\/\//i.test(link) ? link : `https://${link}`);
    return { domain: url.host, alias: url.pathname.replace(/^\/+|\/+$/g, '') || undefined };
  } catch {
    return {};
  }
}

/**
 * Bitly's API v4 (`Authorization: Bearer`): the user's default group from `/v4/user`, then its
 * bitlinks following `pagination.next`. A custom back-half is kept as the alias.
 */
export function bitlySource(ctx: SourceContext): SourceAdapter {
  const base = requireUrl(ctx, 'bitly');
  return {
    origin: `bitly ${base}`,
    async *items(): AsyncGenerator<SourceItem> {
      const headers = { Authorization: `Bearer ${requireKey(ctx, 'bitly')}` };
      const user = (await getJson(new URL(`${base}/v4/user`), headers, ctx.http)) as {
        default_group_guid?: string;
      };
      if (!user.default_group_guid) throw new SourceError('/v4/user names no default group');
      const group = encodeURIComponent(user.default_group_guid);
      let next: URL | null = new URL(`${base}/v4/groups/${group}/bitlinks?size=50`);
      while (next) {
        const body = (await getJson(next, headers, ctx.http)) as BitlinksPage;
        if (typeof body.pagination?.total === 'number') ctx.reportTotal(body.pagination.total);
        for (const b of body.links ?? []) {
          const own = split(b.id ?? b.link ?? '');
          const custom = b.custom_bitlinks?.[0] ? split(b.custom_bitlinks[0]) : {};
          const alias = custom.alias ?? own.alias;
          if (!alias || !b.long_url) {
            yield { kind: 'bad', item: b.id ?? '?', message: 'bitlink without id or long_url' };
            continue;
          }
          const tags = b.tags ?? [];
          yield {
            kind: 'link',
            sourceId: b.id ?? alias,
            url: b.long_url,
            alias,
            domain: custom.domain ?? own.domain,
            title: b.title ?? undefined,
            description: tags.length ? `tags: ${tags.join(', ')}` : undefined,
            createdAt: sourceDate(b.created_at),
          };
        }
        const link = body.pagination?.next;
        next = link ? new URL(link, base) : null;
        // The key goes only where the import was pointed: a next page elsewhere is refused.
        if (next && next.origin !== new URL(base).origin)
          throw new SourceError('pagination.next leaves the Bitly API');
      }
    },
  };
}
