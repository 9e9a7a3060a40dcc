import Joi from 'joi';
import { OVERLAY_TYPES, type OverlayType } from './overlay.model';

export interface OverlayCreate {
  type: OverlayType;
  name: string;
}

/** What an operator may create from the CLI (the API only lists overlays). */
export const overlayCreateSchema = Joi.object<OverlayCreate>({
  type: Joi.string()
    .valid(...OVERLAY_TYPES)
    .required(),
  name: Joi.string()
    .trim()
    .min(1)
    .max(100)
    .pattern(/^[^\p{Cc}]*$/u)
    .required()
    .messages({ 'string.pattern.base': 'name must not contain control characters' }),
});
