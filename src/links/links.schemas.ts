import Joi from 'joi';
import { dateTimeInput } from '../shared/http/date-input';
import { keysetPageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { CUSTOM_ALIAS_PATTERN } from './aliases';
import {
  LINK_BEHAVIOUR_KEYS,
  linkBehaviourFields,
  type LinkBehaviourInput,
} from './link-behaviour.schemas';
import { cleanUrlHost } from '../shared/http/web-url';

export const longUrl = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .custom(cleanUrlHost)
  .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' });

const title = Joi.string().trim().max(255).allow('');
const description = Joi.string().trim().max(1000).allow('');
/** A short link's password guards its target against guessing: eight characters at least (issue 29, L7). */
export const LINK_PASSWORD_MIN_LENGTH = 8;
const password = Joi.string().min(LINK_PASSWORD_MIN_LENGTH).max(128);
const custom = Joi.string().pattern(CUSTOM_ALIAS_PATTERN).messages({
  'string.pattern.base': 'custom must be 3-64 letters, digits, hyphens or underscores',
});

export interface LinkCreate extends LinkBehaviourInput {
  url: string;
  custom?: string;
  domain?: string;
  title?: string;
  description?: string;
  expiry?: Date;
  password?: string;
}

export const linkCreateSchema = Joi.object<LinkCreate>({
  url: longUrl.required(),
  custom,
  // A URL or a bare host; its form is checked where it is looked up (link-domains.ts).
  domain: Joi.string().trim().min(1).max(255),
  title,
  description,
  expiry: dateTimeInput,
  password,
  ...linkBehaviourFields,
});

/** `null` clears an expiry or a password; `custom` moves the link to a new alias. */
export interface LinkUpdate extends LinkBehaviourInput {
  url?: string;
  custom?: string;
  title?: string;
  description?: string;
  expiry?: Date | null;
  password?: string | null;
}

export const linkUpdateSchema = Joi.object<LinkUpdate>({
  url: longUrl,
  custom,
  title,
  description,
  expiry: dateTimeInput.allow(null),
  password: password.allow(null),
  ...linkBehaviourFields,
})
  .min(1)
  .messages({
    'object.min': `at least one of url, custom, title, description, expiry, password, ${LINK_BEHAVIOUR_KEYS.join(', ')} is required`,
  });

/** `GET /api/urls`: GemPixel's `order` (`date`, newest first, or `click`) and `short` lookup. */
export interface LinkListQuery extends PageQuery {
  order: 'date' | 'click';
  short?: string;
  /** The last link seen: the links after it in the chosen order (keyset, any depth). */
  after?: number;
}

export const linkListQuerySchema = (keysetPageQuerySchema as Joi.ObjectSchema<LinkListQuery>).keys({
  order: Joi.string()
    .lowercase()
    .valid('date', 'click', 'clicks')
    .default('date')
    .custom((value: string) => (value === 'clicks' ? 'click' : value)),
  short: Joi.string().trim().min(1).max(2048),
  after: Joi.number()
    .integer()
    .min(1)
    .description(
      'id of the last link seen: the next links in the chosen order (`date`: older; `click`: fewer clicks, ties older), whatever the depth; `page` is then ignored',
    ),
});
