import { formatDateTime } from '../shared/format/dates';
import type { PixelRecord } from './pixel.model';

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
