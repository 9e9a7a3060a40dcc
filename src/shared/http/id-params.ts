import Joi from 'joi';

export const idSchema = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);

/** `:id` as a positive integer; anything else names no resource. */
export const idParams = Joi.object({ id: idSchema.required() });
