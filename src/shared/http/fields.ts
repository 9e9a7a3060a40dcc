import Joi from 'joi';

/** A record's display name: 1-100 characters after trimming, no control characters. */
export const displayName = Joi.string()
  .trim()
  .min(1)
  .max(100)
  .pattern(/^[^\p{Cc}]*$/u)
  .messages({ 'string.pattern.base': '{{#label}} must not contain control characters' });
