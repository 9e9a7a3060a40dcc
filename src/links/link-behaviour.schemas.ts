import Joi from 'joi';
import {
  canonicalCountry,
  canonicalDevice,
  canonicalLanguage,
  DEVICES,
} from '../visitor/rules/rule-values';
import { rulesField, type RuleInput } from '../visitor/rules/rules.schemas';
import { cleanUrlHost } from '../shared/http/web-url';

export const LINK_TYPES = ['direct', 'frame', 'splash', 'overlay'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/**
 * `type` as GemPixel documents it: one of the four words, or the id of a custom splash page
 * (`12` or `"12"`), or `overlay-<id>` for a CTA overlay. Coerced to what it means.
 */
export interface TypeChoice {
  type: LinkType;
  splash?: number;
  overlay?: number;
}

const MAX_ID = 2 ** 31 - 1;
const id = Joi.number().integer().min(1).max(MAX_ID);

const typeField = Joi.alternatives()
  .try(
    Joi.string()
      .trim()
      .lowercase()
      .valid(...LINK_TYPES),
    Joi.string()
      .trim()
      .pattern(/^\d{1,10}$/),
    Joi.string()
      .trim()
      .lowercase()
      .pattern(/^overlay-\d{1,10}$/),
    id,
  )
  .custom((value: string | number): TypeChoice => {
    if (typeof value === 'number' || /^\d+$/.test(value))
      return { type: 'splash', splash: Number(value) };
    if (value.startsWith('overlay-')) return { type: 'overlay', overlay: Number(value.slice(8)) };
    return { type: value as LinkType };
  })
  .messages({
    'alternatives.match':
      '{{#label}} must be direct, frame, splash, overlay, a splash page id or overlay-<id>',
    'alternatives.types':
      '{{#label}} must be direct, frame, splash, overlay, a splash page id or overlay-<id>',
  });

const targetLink = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .custom(cleanUrlHost)
  .required()
  .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' });

/** A rule value normalised by `canonical`, refused with `message` when it names nothing. */
function ruleValue(canonical: (v: string) => string | null, message: string) {
  return Joi.string()
    .trim()
    .min(1)
    .max(100)
    .required()
    .custom((value: string, helpers) => canonical(value) ?? helpers.message({ custom: message }));
}

const MAX_RULES = 50;

const geotarget = Joi.array()
  .items(
    Joi.object({
      location: ruleValue(canonicalCountry, 'location must be a country name or ISO 3166 code'),
      link: targetLink,
    }),
  )
  .max(MAX_RULES);

const devicetarget = Joi.array()
  .items(
    Joi.object({
      device: ruleValue(canonicalDevice, `device must be one of ${DEVICES.join(', ')}`),
      link: targetLink,
    }),
  )
  .max(MAX_RULES);

const languagetarget = Joi.array()
  .items(
    Joi.object({
      language: ruleValue(canonicalLanguage, 'language must be an ISO 639 language code'),
      link: targetLink,
    }),
  )
  .max(MAX_RULES);

const parameters = Joi.array()
  .items(
    Joi.object({
      name: Joi.string()
        .trim()
        .min(1)
        .max(100)
        .pattern(/^[^\p{Cc}&=#]+$/u)
        .required()
        .messages({
          'string.pattern.base': '{{#label}} must not contain &, =, # or control characters',
        }),
      value: Joi.alternatives()
        .try(Joi.string().max(500).allow(''), Joi.number())
        .required()
        .custom((v: string | number) => String(v)),
    }),
  )
  .max(20);

const metaText = (max: number) =>
  Joi.string()
    .trim()
    .max(max)
    .allow('')
    .pattern(/^[^\p{Cc}]*$/u)
    .messages({ 'string.pattern.base': '{{#label}} must not contain control characters' });

export interface TargetRules {
  geotarget?: Array<{ location: string; link: string }> | null;
  devicetarget?: Array<{ device: string; link: string }> | null;
  languagetarget?: Array<{ language: string; link: string }> | null;
  rules?: RuleInput[] | null;
}

/** Click limit and where an expired link sends its visitors; A/B variants. */
export interface ExpiryInput {
  variants?: Array<{ url: string; weight: number }> | null;
  maxclicks?: number | null;
  expiredurl?: string | null;
}

/** Link monitoring: the worker checks the destination; `fallback` serves while it is broken. */
export interface MonitorInput {
  monitor?: boolean;
  fallback?: string | null;
}

/** The link-behaviour fields of `url/add` and `url/:id/update`; `null` clears one on update. */
export interface LinkBehaviourInput extends TargetRules, ExpiryInput, MonitorInput {
  type?: TypeChoice;
  splash?: number | null;
  overlay?: number | null;
  pixels?: number[] | null;
  parameters?: Array<{ name: string; value: string }> | null;
  metatitle?: string;
  metadescription?: string;
  metaimage?: string;
}

/** Spread into the link create and update schemas. */
export const linkBehaviourFields = {
  type: typeField,
  splash: id.allow(null),
  overlay: id.allow(null),
  pixels: Joi.array().items(id).unique().max(20).allow(null),
  geotarget: geotarget.allow(null),
  devicetarget: devicetarget.allow(null),
  languagetarget: languagetarget.allow(null),
  rules: rulesField.allow(null),
  variants: Joi.array()
    .items(
      Joi.object({
        url: targetLink,
        weight: Joi.number().integer().min(1).max(100).required(),
      }),
    )
    .min(2)
    .max(10)
    .unique('url')
    .custom((value: Array<{ weight: number }>, helpers) =>
      value.reduce((sum, v) => sum + v.weight, 0) === 100
        ? value
        : helpers.message({ custom: '{{#label}} weights must add up to 100' }),
    )
    .allow(null),
  maxclicks: Joi.number().integer().min(1).max(MAX_ID).allow(null),
  expiredurl: Joi.string()
    .trim()
    .max(2048)
    .uri({ scheme: ['http', 'https'] })
    .custom(cleanUrlHost)
    .allow(null, '')
    .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' }),
  monitor: Joi.boolean(),
  fallback: Joi.string()
    .trim()
    .max(2048)
    .uri({ scheme: ['http', 'https'] })
    .custom(cleanUrlHost)
    .allow(null, '')
    .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' }),
  parameters: parameters.allow(null),
  metatitle: metaText(200),
  metadescription: metaText(500),
  metaimage: Joi.string()
    .trim()
    .max(2048)
    .allow('')
    .uri({ scheme: ['http', 'https'] })
    .custom(cleanUrlHost)
    .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' }),
};

export const LINK_BEHAVIOUR_KEYS = Object.keys(linkBehaviourFields);
