import Joi from 'joi';
import { dateTimeInput } from '../shared/http/date-input';
import { scopeSchema } from '../auth/scopes';

/** A week: the longest two keys may both work after a rotation. */
export const MAX_GRACE_SECONDS = 604_800;

/** The current password: a dashboard session must give it to mint or rotate a key (see H1). */
const current = Joi.string()
  .max(1024)
  .description('your current password: required from a dashboard session, ignored with an API key');

export const keyCreateSchema = Joi.object({
  current,
  name: Joi.string().trim().min(1).max(100).required(),
  scopes: Joi.array().items(scopeSchema).min(1).unique().required(),
  expires: dateTimeInput.allow(null),
});

export interface KeyCreate {
  current?: string;
  name: string;
  scopes: string[];
  expires?: Date | null;
}

export const keyRotateSchema = Joi.object({
  current,
  grace: Joi.number().integer().min(0).max(MAX_GRACE_SECONDS).default(0),
});

export interface KeyRotate {
  current?: string;
  grace: number;
}

/** `:id` of a key; 0 is the default key. */
export const keyParams = Joi.object({
  id: Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).required(),
});
