import { parse } from 'csv-parse';
import type { SourceAdapter, SourceContext, SourceItem } from './source';
import { sourceDate } from './source';

type Column = 'alias' | 'url' | 'title' | 'description' | 'expiry' | 'created' | 'short' | 'domain';

/**
 * Header names, lower-cased with everything but letters and digits dropped, of the CSV exports
 * people bring: YOURLS (`keyword`, `url`, `title`, `timestamp`, `clicks`), Bitly (`long_url`,
 * `link`, `custom_bitlinks`, `created_at`), Rebrandly (`destination`, `slashtag`, `domain`),
 * Shlink (`shortCode`, `longUrl`, `shortUrl`, `dateCreated`), and linkqr's own names.
 */
const HEADERS: Record<string, Column> = {
  alias: 'alias',
  keyword: 'alias',
  custom: 'alias',
  shortcode: 'alias',
  slashtag: 'alias',
  backhalf: 'alias',
  url: 'url',
  longurl: 'url',
  destination: 'url',
  destinationurl: 'url',
  originalurl: 'url',
  target: 'url',
  title: 'title',
  description: 'description',
  expiry: 'expiry',
  expires: 'expiry',
  expiresat: 'expiry',
  expiration: 'expiry',
  validuntil: 'expiry',
  timestamp: 'created',
  createdat: 'created',
  created: 'created',
  datecreated: 'created',
  date: 'created',
  shorturl: 'short',
  shortlink: 'short',
  link: 'short',
  bitlink: 'short',
  domain: 'domain',
};

function columnOf(header: string): Column | undefined {
  return HEADERS[header.toLowerCase().replace(/[^a-z0-9]/g, '')];
}

/** The alias a short URL names (`https://bit.ly/spring` -> `spring`), with its host. */
function fromShortUrl(short: string): { alias?: string; domain?: string } {
  try {
    const url = new URL(/^[a-z]+:\/\//i.test(short) ? short : `https://${short}`);
    const alias = url.pathname.replace(/^\/+|\/+$/g, '');
    return { alias: alias || undefined, domain: url.host };
  } catch {
    return {};
  }
}

/**
 * Rows of an uploaded CSV, parsed as a stream (csv-parse): the file is read as the import goes,
 * so memory stays flat whatever the number of rows.
 */
export function csvSource(ctx: SourceContext): SourceAdapter {
  return {
    origin: 'csv',
    async *items(): AsyncGenerator<SourceItem> {
      const parser = ctx.openFile().pipe(
        parse({
          columns: (headers: string[]) => headers.map((h) => columnOf(h) ?? false),
          bom: true,
          skip_empty_lines: true,
          relax_column_count: true,
          trim: true,
        }),
      );
      let row = 1;
      for await (const record of parser as AsyncIterable<Partial<Record<Column, string>>>) {
        row += 1;
        const short = record.short ? fromShortUrl(record.short) : {};
        const alias = record.alias || short.alias;
        const url = record.url;
        if (!url) {
          yield { kind: 'bad', item: `row ${row}`, message: 'row has no url' };
          continue;
        }
        yield {
          kind: 'link',
          sourceId: alias ? `alias:${alias}` : `row:${row}:${url}`,
          url,
          alias: alias || undefined,
          domain: record.domain || short.domain,
          title: record.title,
          description: record.description,
          expiry: sourceDate(record.expiry) ?? null,
          createdAt: sourceDate(record.created),
        };
      }
    },
  };
}
