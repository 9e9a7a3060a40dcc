import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import type { LinkRecord } from './link.model';
import { shortUrlOf } from './short-url';

/** A link in `GET /api/urls`. */
export function presentLink(
  link: LinkRecord,
  origins: ReadonlyMap<number, string>,
  publicUrl: string,
  clicks: number,
) {
  return {
    id: link.id,
    alias: link.alias,
    shorturl: shortUrlOf(link, origins, publicUrl),
    longurl: link.url,
    title: link.title,
    description: link.description ?? '',
    clicks,
    date: formatDateTime(link.createdAt),
  };
}

/** `details` of `GET /api/url/:id`: the list fields plus the settings a visitor meets. */
export function presentLinkDetails(
  link: LinkRecord,
  origins: ReadonlyMap<number, string>,
  publicUrl: string,
  clicks: number,
) {
  return {
    ...presentLink(link, origins, publicUrl, clicks),
    expiry: formatOptionalDateTime(link.expiry),
    password: Boolean(link.passwordHash),
  };
}
