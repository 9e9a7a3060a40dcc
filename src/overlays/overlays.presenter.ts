import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import type { OverlayResponseRecord } from './overlay-response.model';
import { OVERLAY_TYPES, type OverlayRecord } from './overlay.model';

/** A CTA overlay as the spec lists it (4.5), with its settings and response count added. */
export function presentOverlay(overlay: OverlayRecord) {
  return {
    id: overlay.id,
    type: overlay.type,
    name: overlay.name,
    date: formatDateTime(overlay.createdAt),
    message: overlay.message ?? '',
    button: overlay.button ?? '',
    link: overlay.link ?? '',
    color: overlay.color ?? '#ffffff',
    background: overlay.background ?? '#1f2937',
    position: overlay.position ?? 'bottom-right',
    responses: overlay.responses ?? 0,
  };
}

/** One contact-form message in `GET /api/overlay/:id/responses`. */
export function presentOverlayResponse(response: OverlayResponseRecord) {
  return {
    id: response.id,
    link: response.linkId,
    name: response.name,
    email: response.email,
    message: response.message,
    date: formatDateTime(response.createdAt),
  };
}

export const overlayJson = record({
  id: idJson,
  type: Joi.string().valid(...OVERLAY_TYPES),
  name: Joi.string(),
  date: dateTimeJson,
  message: Joi.string().allow(''),
  button: Joi.string().allow(''),
  link: Joi.string().allow(''),
  color: Joi.string(),
  background: Joi.string(),
  position: Joi.string(),
  responses: Joi.number().integer().min(0),
});

export const overlayResponseJson = record({
  id: idJson,
  link: idJson.allow(null),
  name: Joi.string().allow(''),
  email: Joi.string().allow(''),
  message: Joi.string().allow(''),
  date: dateTimeJson,
});
