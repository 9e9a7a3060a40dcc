import Joi from 'joi';
import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record, urlJson } from '../shared/http/responses';
import {
  linkBehaviourJson,
  presentLinkBehaviour,
  presentTargetingMaps,
  targetingMapsJson,
} from './link-behaviour.presenter';
import { healthJson, presentHealth } from './link-health';
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
    ...presentLinkBehaviour(link),
  };
}

/** `details` of `GET /api/url/:id`: the list fields plus the settings a visitor meets. */
export function presentLinkDetails(
  link: LinkRecord,
  origins: ReadonlyMap<number, string>,
  publicUrl: string,
  clicks: number,
  variantClicks: ReadonlyMap<string, number> = new Map(),
) {
  const listed = presentLink(link, origins, publicUrl, clicks);
  return {
    ...listed,
    variants: listed.variants.map((v) => ({ ...v, clicks: variantClicks.get(v.url) ?? 0 })),
    expiry: formatOptionalDateTime(link.expiry),
    password: Boolean(link.passwordHash),
    ...presentTargetingMaps(link),
    health: presentHealth(link.monitor ? link.health : null),
  };
}

const linkFields = {
  id: idJson,
  alias: Joi.string().example('spring'),
  shorturl: urlJson.example('https://go.example.com/spring'),
  longurl: urlJson,
  title: Joi.string().allow(''),
  description: Joi.string().allow(''),
  clicks: Joi.number().integer().min(0),
  date: dateTimeJson,
  ...linkBehaviourJson,
};

export const linkJson = record(linkFields);

export const linkDetailsJson = record({
  ...linkFields,
  expiry: dateTimeJson.allow(null),
  password: Joi.boolean().description('whether visitors must enter a password'),
  ...targetingMapsJson,
  health: healthJson,
});
