import Joi from 'joi';
import { idJson, mapOf, urlJson } from '../shared/http/responses';
import type { RuleWhen } from '../visitor/rules/rules.schemas';
import type { LinkRecord } from './link.model';
import { linkParameters } from './link-behaviour.service';

/** The behaviour fields of a link in list items and details, under GemPixel's names. */
export function presentLinkBehaviour(link: LinkRecord) {
  return {
    type: link.type ?? 'direct',
    splash: link.splashId ?? null,
    overlay: link.overlayId ?? null,
    pixels: link.pixelIds ?? [],
    geotarget: (link.geotarget ?? []).map((r) => ({ location: r.location, link: r.link })),
    devicetarget: (link.devicetarget ?? []).map((r) => ({ device: r.device, link: r.link })),
    languagetarget: (link.languagetarget ?? []).map((r) => ({
      language: r.language,
      link: r.link,
    })),
    rules: (link.rules ?? []).map((r) => ({ url: r.url ?? '', when: (r.when ?? {}) as RuleWhen })),
    variants: (link.variants ?? []).map((v) => ({ url: v.url ?? '', weight: v.weight ?? 0 })),
    maxclicks: link.maxClicks ?? null,
    expiredurl: link.expiredUrl ?? null,
    monitor: link.monitor ?? false,
    fallback: link.fallback ?? null,
    parameters: linkParameters(link),
    metatitle: link.metatitle ?? '',
    metadescription: link.metadescription ?? '',
    metaimage: link.metaimage ?? '',
  };
}

/** The first link per key, as a map (a later rule for the same key never matches). */
function firstPerKey(rules: Array<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, link] of rules) if (!(key in out)) out[key] = link;
  return out;
}

/**
 * GemPixel's details also show the targeting as maps, `location` by country and `device` by
 * lower-cased device name (its connector's sample has `device.iphone`).
 */
export function presentTargetingMaps(link: LinkRecord) {
  return {
    location: firstPerKey((link.geotarget ?? []).map((r) => [r.location ?? '', r.link ?? ''])),
    device: firstPerKey(
      (link.devicetarget ?? []).map((r) => [(r.device ?? '').toLowerCase(), r.link ?? '']),
    ),
  };
}

const rules = (key: string) =>
  Joi.array().items(Joi.object({ [key]: Joi.string(), link: urlJson }));

/** Response schemas of the fields above, for the OpenAPI document. */
export const linkBehaviourJson = {
  type: Joi.string().valid('direct', 'frame', 'splash', 'overlay'),
  splash: idJson.allow(null),
  overlay: idJson.allow(null),
  pixels: Joi.array().items(idJson),
  geotarget: rules('location'),
  devicetarget: rules('device'),
  languagetarget: rules('language'),
  rules: Joi.array()
    .items(
      Joi.object({
        url: urlJson,
        when: Joi.object()
          .unknown(true)
          .description(
            'country, language, device, os, browser, query, ip, after, before, referrer',
          ),
      }),
    )
    .description('redirect rules in order; the first that matches wins'),
  variants: Joi.array()
    .items(
      Joi.object({
        url: urlJson,
        weight: Joi.number().integer().min(1).max(100),
        clicks: Joi.number()
          .integer()
          .min(0)
          .description('in details: clicks sent to this variant (people only)'),
      }),
    )
    .description('A/B split, weights adding up to 100'),
  maxclicks: Joi.number()
    .integer()
    .min(1)
    .allow(null)
    .description('counted clicks after which the link has expired'),
  expiredurl: urlJson.allow(null).description('where visitors of an expired link go'),
  monitor: Joi.boolean().description('whether the worker checks the destination for a dead page'),
  fallback: urlJson
    .allow(null)
    .description('where visitors go while the destination is broken (null: the destination)'),
  parameters: Joi.array().items(Joi.object({ name: Joi.string(), value: Joi.string().allow('') })),
  metatitle: Joi.string().allow(''),
  metadescription: Joi.string().allow(''),
  metaimage: Joi.string().allow(''),
};

export const targetingMapsJson = {
  location: mapOf(Joi.string()).description('first target link per country'),
  device: mapOf(Joi.string()).description('first target link per lower-cased device name'),
};
