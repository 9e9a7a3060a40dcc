import Joi from 'joi';
import { IMPORT_SOURCES, type ImportSource } from './import.model';

export interface ImportCreate {
  source: ImportSource;
  url?: string;
  key?: string;
  onConflict: 'skip' | 'rename';
}

/** `POST /api/import` as JSON, or the text fields of its multipart form (with `file`). */
export const importCreateSchema = Joi.object<ImportCreate>({
  source: Joi.string()
    .valid(...IMPORT_SOURCES)
    .required(),
  url: Joi.string()
    .trim()
    .max(2048)
    .uri({ scheme: ['http', 'https'] })
    .messages({ 'string.uriCustomScheme': '{{#label}} must be an http or https URL' }),
  key: Joi.string().min(1).max(4096),
  onConflict: Joi.string().valid('skip', 'rename').default('skip'),
});

/** Where a source lives when `url` is not given (the public service, where there is one). */
export const DEFAULT_SOURCE_URLS: Partial<Record<ImportSource, string>> = {
  kutt: 'https://kutt.it',
  bitly: 'https://api-ssl.bitly.com',
};

/** Sources read from an uploaded file instead of (or as well as) an instance's API. */
export const FILE_SOURCES: readonly ImportSource[] = ['csv', 'linkqr'];
