import type { LinkRecord } from './link.model';

/** The visitor-facing URL of a link: on its branded domain while that exists, else on PUBLIC_URL. */
export function shortUrlOf(
  link: Pick<LinkRecord, 'domainId' | 'alias'>,
  origins: ReadonlyMap<number, string>,
  publicUrl: string,
): string {
  return `${origins.get(link.domainId) ?? publicUrl}/${link.alias}`;
}
