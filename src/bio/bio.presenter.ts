import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { escapeHtml } from '../shared/http/pages';
import { dateTimeJson, idJson, record, urlJson } from '../shared/http/responses';
import { bioPageUrl } from './bio-url';
import type { BioRecord } from './bio.model';

/** A bio page in `GET /api/bio`. */
export function presentBio(bio: BioRecord, publicUrl: string) {
  return {
    id: bio.id,
    alias: bio.alias,
    name: bio.name,
    link: bioPageUrl(publicUrl, bio.alias),
    links: bio.links.map((l) => ({ title: l.title, url: l.url })),
    date: formatDateTime(bio.createdAt),
  };
}

export const bioJson = record({
  id: idJson,
  alias: Joi.string().example('ada'),
  name: Joi.string().example("Ada's links"),
  link: urlJson,
  links: Joi.array().items(record({ title: Joi.string(), url: urlJson })),
  date: dateTimeJson,
});

/** The visitor's page; every user-written string is escaped, and URLs are http(s) only. */
export function renderBioBody(bio: BioRecord): string {
  const items = bio.links
    .map(
      (l) =>
        `<li><a href="${escapeHtml(l.url)}" rel="nofollow noopener">${escapeHtml(l.title)}</a></li>`,
    )
    .join('');
  return `<h1>${escapeHtml(bio.name)}</h1><ul>${items}</ul>`;
}
