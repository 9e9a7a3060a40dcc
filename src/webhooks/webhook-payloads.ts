import type { LinkRecord } from '../links/link.model';
import { shortUrlOf } from '../links/short-url';
import { formatDateTime } from '../shared/format/dates';

/** A link as `link.created` and `link.updated` carry it (the list fields, clicks aside). */
export function linkEventData(
  link: LinkRecord,
  origins: ReadonlyMap<number, string>,
  publicUrl: string,
) {
  return {
    id: link.id,
    alias: link.alias,
    shorturl: shortUrlOf(link, origins, publicUrl),
    longurl: link.url,
    title: link.title,
    date: formatDateTime(link.createdAt),
  };
}
