import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import { OVERLAY_TYPES, type OverlayRecord } from './overlay.model';

/** A CTA overlay as the spec lists it (4.5). */
export function presentOverlay(overlay: OverlayRecord) {
  return {
    id: overlay.id,
    type: overlay.type,
    name: overlay.name,
    date: formatDateTime(overlay.createdAt),
  };
}

export const overlayJson = record({
  id: idJson,
  type: Joi.string().valid(...OVERLAY_TYPES),
  name: Joi.string(),
  date: dateTimeJson,
});
