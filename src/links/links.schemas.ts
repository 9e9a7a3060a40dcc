import Joi from 'joi';
import { CUSTOM_ALIAS_PATTERN } from './aliases';
import {
  LINK_BEHAVIOUR_KEYS,
  linkBehaviourFields,
  type LinkBehaviourInput,
} from './link-behaviour.schemas';

const DATE_TIME_INPUT =
  /^(\d{4})-(\d{2})-(\d{2})(?: |T)(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * The spec's `YYYY-MM-DD HH:MM:SS` (UTC, like every date the API writes) or ISO 8601 with an
 * optional offset (UTC when absent). Days that do not exist (Feb 31) are refused, where `Date`
 * would silently roll them into the next month; the server's time zone never matters.
 */
export function parseDateTimeInput(value: string): Date | null {
  const m = DATE_TIME_INPUT.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day!) return null;
  if (hour! > 23 || minute! > 59 || second! > 59) return null;
  const [, y, mo, d, h, mi, sec = '00', fraction = '', zone = 'Z'] = m;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}${fraction}${zone}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

export const dateTimeInput = Joi.string()
  .custom((value: string, helpers) => parseDateTimeInput(value) ?? helpers.error('any.invalid'))
  .messages({
    'any.invalid': '{{#label}} must be a date-time (YYYY-MM-DD HH:MM:SS in UTC, or ISO 8601)',
    'string.base': '{{#label}} must be a date-time (YYYY-MM-DD HH:MM:SS in UTC, or ISO 8601)',
  });

export const longUrl = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' });

const title = Joi.string().trim().max(255).allow('');
const password = Joi.string().min(1).max(128);

export interface LinkCreate extends LinkBehaviourInput {
  url: string;
  custom?: string;
  domain?: string;
  title?: string;
  expiry?: Date;
  password?: string;
}

export const linkCreateSchema = Joi.object<LinkCreate>({
  url: longUrl.required(),
  custom: Joi.string().pattern(CUSTOM_ALIAS_PATTERN).messages({
    'string.pattern.base': 'custom must be 3-64 letters, digits, hyphens or underscores',
  }),
  // Its form is checked where it is looked up, by the domains module's normaliser.
  domain: Joi.string().trim().min(1).max(255),
  title,
  expiry: dateTimeInput,
  password,
  ...linkBehaviourFields,
});

/** `null` clears an expiry or a password. */
export interface LinkUpdate extends LinkBehaviourInput {
  url?: string;
  title?: string;
  expiry?: Date | null;
  password?: string | null;
}

export const linkUpdateSchema = Joi.object<LinkUpdate>({
  url: longUrl,
  title,
  expiry: dateTimeInput.allow(null),
  password: password.allow(null),
  ...linkBehaviourFields,
})
  .min(1)
  .messages({
    'object.min': `at least one of url, title, expiry, password, ${LINK_BEHAVIOUR_KEYS.join(', ')} is required`,
  });
