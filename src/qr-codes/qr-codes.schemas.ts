import Joi from 'joi';
import { QR_FORMATS, QR_TYPES, type QrFormat, type QrType } from './qr-code.model';
import { colourSchema, styleSchema, type QrStyle } from './design/style';

export const MIN_SIZE = 128;
export const MAX_SIZE = 4096;
export const DEFAULT_SIZE = 512;

const colour = colourSchema;

/** Per-type `data` is checked by `parseQrContent`, once the type (sent or stored) is known. */
const data = Joi.alternatives(Joi.string(), Joi.object().unknown(true)).messages({
  'alternatives.types': 'data must be a string or an object',
});

const common = {
  data,
  background: colour,
  foreground: colour,
  // '' or null removes the logo on update.
  logo: Joi.string().trim().max(2048).allow('', null),
  name: Joi.string().trim().max(255).allow(''),
  size: Joi.number().integer().min(MIN_SIZE).max(MAX_SIZE),
  format: Joi.string().valid(...QR_FORMATS),
  style: styleSchema,
};

export interface QrCreate {
  type: QrType;
  data: unknown;
  background?: string;
  foreground?: string;
  logo?: string | null;
  name?: string;
  size?: number;
  format?: QrFormat;
  style?: QrStyle | null;
}

export const qrCreateSchema = Joi.object<QrCreate>({
  ...common,
  type: Joi.string()
    .valid(...QR_TYPES)
    .required(),
  data: data.required(),
});

export type QrUpdate = Partial<QrCreate> & { data: unknown };

export const qrUpdateSchema = Joi.object<QrUpdate>({
  ...common,
  type: Joi.string().valid(...QR_TYPES),
  data: data.required(),
});
