import Joi from 'joi';
import { longUrl } from '../links/links.schemas';
import { displayName, hexColor, visitorText } from '../shared/http/fields';
import {
  OVERLAY_POSITIONS,
  OVERLAY_TYPES,
  type OverlayPosition,
  type OverlayType,
} from './overlay.model';

export interface OverlayFields {
  message?: string;
  button?: string;
  link?: string;
  color?: string;
  background?: string;
  position?: OverlayPosition;
}

export interface OverlayCreate extends OverlayFields {
  type: OverlayType;
  name: string;
}

export type OverlayUpdate = Partial<OverlayCreate>;

const type = Joi.string()
  .trim()
  .lowercase()
  .valid(...OVERLAY_TYPES);

const fields = {
  name: displayName,
  message: visitorText(1000),
  button: visitorText(100),
  link: longUrl.allow(''),
  color: hexColor,
  background: hexColor,
  position: Joi.string()
    .trim()
    .lowercase()
    .valid(...OVERLAY_POSITIONS),
};

/** `POST /api/overlay/add` (and the CLI's overlay:add). */
export const overlayCreateSchema = Joi.object<OverlayCreate>({
  ...fields,
  type: type.required(),
  name: displayName.required(),
});

export const overlayUpdateSchema = Joi.object<OverlayUpdate>({ ...fields, type })
  .min(1)
  .messages({
    'object.min': `at least one of type, ${Object.keys(fields).join(', ')} is required`,
  });

/** What a visitor posts through a contact overlay's form. */
export interface ContactForm {
  token: string;
  name: string;
  email: string;
  message: string;
}

export const contactFormSchema = Joi.object<ContactForm>({
  token: Joi.string().max(100).required(),
  name: displayName.required(),
  email: Joi.string().trim().max(254).email().required(),
  message: visitorText(2000).min(1).required(),
});
