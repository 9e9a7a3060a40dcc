import Joi from 'joi';
import { cleanUrlHost } from '../shared/http/web-url';

export interface DomainCreate {
  domain: string;
  redirectroot?: string | null;
  redirect404?: string | null;
}

export interface DomainUpdate {
  redirectroot?: string | null;
  redirect404?: string | null;
}

/** An optional redirect target; `null` or `""` clears it. */
const redirectUrl = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .custom(cleanUrlHost)
  .allow(null, '')
  .messages({
    'string.uri': '{#label} must be an http:// or https:// URL',
    'string.uriCustomScheme': '{#label} must be an http:// or https:// URL',
  });

// The shape of `domain` itself is checked by `normaliseDomain`, which gives the precise reason.
export const domainCreateSchema = Joi.object<DomainCreate>({
  domain: Joi.string().trim().max(300).required(),
  redirectroot: redirectUrl,
  redirect404: redirectUrl,
});

export const domainUpdateSchema = Joi.object({
  domain: Joi.any().forbidden().messages({ 'any.unknown': 'domain cannot be changed' }),
  redirectroot: redirectUrl,
  redirect404: redirectUrl,
})
  .or('redirectroot', 'redirect404')
  .messages({ 'object.missing': 'redirectroot or redirect404 is required' });
