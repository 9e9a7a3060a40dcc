import Joi from 'joi';
import { displayName } from '../shared/http/fields';
import { PIXEL_TYPES, type PixelType } from './pixel-tags';

export interface PixelCreate {
  type: PixelType;
  name: string;
  tag: string;
}

export interface PixelUpdate {
  name?: string;
  tag: string;
}

// The format of a tag depends on the pixel's type: `checkTag` judges it in the service.
const tag = Joi.string().trim().max(200);

export const pixelCreateSchema = Joi.object<PixelCreate>({
  type: Joi.string()
    .valid(...PIXEL_TYPES)
    .required(),
  name: displayName.required(),
  tag: tag.required(),
});

export const pixelUpdateSchema = Joi.object({
  type: Joi.any().forbidden().messages({ 'any.unknown': 'type cannot be changed' }),
  name: displayName,
  tag: tag.required(),
});
