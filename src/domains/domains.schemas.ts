import Joi from 'joi';
import { cleanUrlHost } from '../shared/http/web-url';

/** The app-link files a branded domain serves, as compact JSON text; null clears one. */
export interface AppLinkFiles {
  appleAppSiteAssociation?: string | null;
  assetLinks?: string | null;
}

export interface DomainCreate extends AppLinkFiles {
  domain: string;
  redirectroot?: string | null;
  redirect404?: string | null;
}

export interface DomainUpdate extends AppLinkFiles {
  redirectroot?: string | null;
  redirect404?: string | null;
}

export const MAX_APP_LINK_FILE_BYTES = 16 * 1024;

/**
 * An app-link file: JSON sent as such (an object for Apple's, an array for Android's) or as a
 * string holding it, stored as compact text of at most 16 kB.
 */
function appLinkFile(shape: 'object' | 'array') {
  return Joi.any()
    .custom((value: unknown, helpers) => {
      if (value === null) return null;
      let parsed: unknown = value;
      if (typeof value === 'string') {
        try {
          parsed = JSON.parse(value);
        } catch {
          return helpers.message({ custom: '{{#label}} must be JSON' });
        }
      }
      const isArray = Array.isArray(parsed);
      const fits = shape === 'array' ? isArray : !isArray && typeof parsed === 'object' && parsed;
      if (!fits) return helpers.message({ custom: `{{#label}} must be a JSON ${shape}` });
      const text = JSON.stringify(parsed);
      if (Buffer.byteLength(text) > MAX_APP_LINK_FILE_BYTES)
        return helpers.message({ custom: '{{#label}} must be at most 16 kB of JSON' });
      return text;
    })
    .allow(null);
}

const appLinkFields = {
  appleAppSiteAssociation: appLinkFile('object'),
  assetLinks: appLinkFile('array'),
};

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
  ...appLinkFields,
});

export const domainUpdateSchema = Joi.object({
  domain: Joi.any().forbidden().messages({ 'any.unknown': 'domain cannot be changed' }),
  redirectroot: redirectUrl,
  redirect404: redirectUrl,
  ...appLinkFields,
})
  .or('redirectroot', 'redirect404', 'appleAppSiteAssociation', 'assetLinks')
  .messages({
    'object.missing':
      'redirectroot, redirect404, appleAppSiteAssociation or assetLinks is required',
  });
