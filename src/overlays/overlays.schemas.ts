import Joi from 'joi';
import { displayName } from '../shared/http/fields';
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
  name: displayName.required(),
});
