import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import type { PixelRecord } from './pixel.model';
import { PIXEL_TYPES } from './pixel-tags';

/** A pixel as the spec lists it (4.10). */
export function presentPixel(pixel: PixelRecord) {
  return {
    id: pixel.id,
    type: pixel.type,
    name: pixel.name,
    tag: pixel.tag,
    date: formatDateTime(pixel.createdAt),
  };
}

export const pixelJson = record({
  id: idJson,
  type: Joi.string().valid(...PIXEL_TYPES),
  name: Joi.string().example('Main GA4'),
  tag: Joi.string().example('G-ABC123XYZ'),
  date: dateTimeJson,
});
