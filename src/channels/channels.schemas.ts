import Joi from 'joi';
import { idSchema } from '../shared/http/id-params';

const name = Joi.string().trim().min(1).max(255);
const description = Joi.string().trim().max(1000).allow('');
const color = Joi.string()
  .pattern(/^#[0-9A-Fa-f]{6}$/)
  .messages({ 'string.pattern.base': 'color must be a HEX color such as #1A2B3C' });
const starred = Joi.boolean();

export interface ChannelCreate {
  name: string;
  description?: string;
  color?: string;
  starred?: boolean;
}

export const channelCreateSchema = Joi.object<ChannelCreate>({
  name: name.required(),
  description,
  color,
  starred,
});

export type ChannelUpdate = Partial<ChannelCreate>;

export const channelUpdateSchema = Joi.object<ChannelUpdate>({ name, description, color, starred })
  .min(1)
  .messages({ 'object.min': 'at least one of name, description, color, starred is required' });

/** `:type` is checked in the handler: an unknown type is a bad request (422), not a missing page. */
export const assignParams = Joi.object({
  channelid: idSchema.required(),
  type: Joi.string().required(),
  itemid: idSchema.required(),
});

export interface AssignParams {
  channelid: number;
  type: string;
  itemid: number;
}
