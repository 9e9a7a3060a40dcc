import { cleanUrlHost } from '../../shared/http/web-url';
import ipaddr from 'ipaddr.js';
import Joi from 'joi';
import { parseDateTimeInput } from '../../shared/http/date-input';
import { countryName, UNKNOWN_COUNTRY } from '../../visits/visit-capture';
import { canonicalLanguage } from './rule-values';

/** The device classes a rule can name; a visitor may be in several (an iPhone is also `mobile`). */
export const RULE_DEVICES = ['iphone', 'ipad', 'android', 'mobile', 'tablet', 'desktop'] as const;
export type RuleDevice = (typeof RULE_DEVICES)[number];

export const MAX_RULES = 50;
const MAX_VALUES = 100;

/** What a rule looks at: every key present must match, and a key matches one of its values. */
export interface RuleWhen {
  country?: string[];
  language?: string[];
  device?: RuleDevice[];
  os?: string[];
  browser?: string[];
  query?: Record<string, string>;
  ip?: string[];
  /** ISO 8601 with a zone, as sent: the rule holds from this instant on. */
  after?: string;
  /** ISO 8601 with a zone, as sent: the rule holds until just before this instant. */
  before?: string;
  referrer?: string[];
}

export interface RuleInput {
  url: string;
  when: RuleWhen;
}

const list = (item: Joi.Schema) => Joi.array().items(item).min(1).max(MAX_VALUES);

function checked(canonical: (v: string) => string | null, message: string) {
  return Joi.string()
    .trim()
    .min(1)
    .max(100)
    .custom((value: string, helpers) => canonical(value) ?? helpers.message({ custom: message }));
}

const isoCountry = (value: string) =>
  /^[A-Za-z]{2}$/.test(value) && countryName(value) !== UNKNOWN_COUNTRY
    ? value.toUpperCase()
    : null;

/** An address or a CIDR range, IPv4 (dotted quads only) or IPv6, kept as sent. */
const ipOrRange = (value: string) => {
  const [address = '', bits, ...rest] = value.split('/');
  if (rest.length || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return null;
  if (!address.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(address)) return null;
  if (bits === undefined) return ipaddr.isValid(address) ? value : null;
  return ipaddr.isValidCIDR(value) ? value : null;
};

const HOST =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Only a date-time with its zone (`Z` or `+02:00`): a window must not depend on the server. */
const zonedInstant = Joi.string()
  .trim()
  .custom((value: string, helpers) => {
    const zoned = /T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(value);
    if (!zoned || !parseDateTimeInput(value))
      return helpers.message({
        custom:
          '{{#label}} must be an ISO 8601 date-time with a zone, such as 2026-11-27T09:00:00+01:00',
      });
    return value;
  });

const when = Joi.object<RuleWhen>({
  country: list(checked(isoCountry, '{{#label}} must be an ISO 3166 country code')),
  language: list(checked(canonicalLanguage, '{{#label}} must be an ISO 639 language code')),
  device: list(
    Joi.string()
      .trim()
      .lowercase()
      .valid(...RULE_DEVICES)
      .messages({ 'any.only': `{{#label}} must be one of ${RULE_DEVICES.join(', ')}` }),
  ),
  os: list(Joi.string().trim().lowercase().min(1).max(50)),
  browser: list(Joi.string().trim().lowercase().min(1).max(50)),
  query: Joi.object()
    .pattern(
      Joi.string()
        .min(1)
        .max(100)
        .pattern(/^[^\p{Cc}&=#]+$/u),
      Joi.string().max(500).allow(''),
    )
    .min(1)
    .max(20),
  ip: list(checked(ipOrRange, '{{#label}} must be an IP address or a CIDR range')),
  after: zonedInstant,
  before: zonedInstant,
  referrer: list(
    Joi.string()
      .trim()
      .lowercase()
      .pattern(HOST)
      .messages({ 'string.pattern.base': '{{#label}} must be a host name' }),
  ),
})
  .min(1)
  .custom((value: RuleWhen, helpers) => {
    if (value.after && value.before)
      if (Date.parse(value.after) >= Date.parse(value.before))
        return helpers.message({ custom: '{{#label}}.before must be later than after' });
    return value;
  })
  .messages({ 'object.min': '{{#label}} must name at least one key' });

const destination = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .custom(cleanUrlHost)
  .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' });

/** A custom scheme that opens an app (`myapp://path`); never one a browser runs or reads. */
export const APP_URL =
  /^(?!(?:https?|javascript|data|vbscript|file|blob|about|ftp|ws|wss):)[a-z][a-z0-9+.-]{1,31}:\/\/[^\s<>"'`\\]{0,2000}$/i;

export const isAppUrl = (url: string) => APP_URL.test(url);

const ruleUrl = Joi.alternatives()
  .try(destination, Joi.string().trim().max(2048).pattern(APP_URL))
  .messages({
    'alternatives.match': '{{#label}} must be an http or https URL, or an app URL (myapp://...)',
  });

/** `rules`: ordered, first match wins; `null` or `[]` clears them on update. */
export const rulesField = Joi.array()
  .items(
    Joi.object<RuleInput>({ url: ruleUrl.required(), when: when.required() }).custom(
      (rule: RuleInput, helpers) =>
        isAppUrl(rule.url) && !rule.when.device
          ? helpers.message({
              custom: '{{#label}}.url may be an app URL only in a rule with device',
            })
          : rule,
    ),
  )
  .max(MAX_RULES);
