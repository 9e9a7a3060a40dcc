import Joi from 'joi';

/** A record's display name: 1-100 characters after trimming, no control characters. */
export const displayName = Joi.string()
  .trim()
  .min(1)
  .max(100)
  .pattern(/^[^\p{Cc}]*$/u)
  .messages({ 'string.pattern.base': '{{#label}} must not contain control characters' });

/** A colour in `#RRGGBB` form. */
export const hexColor = Joi.string()
  .trim()
  .pattern(/^#[0-9A-Fa-f]{6}$/)
  .messages({ 'string.pattern.base': '{{#label}} must be a HEX color such as #1A2B3C' });

/** Free text shown to visitors: bounded, no control characters but line breaks. */
export const visitorText = (max: number) =>
  Joi.string()
    .trim()
    .max(max)
    .allow('')
    .pattern(/^(?:[^\p{Cc}]|[\n\r])*$/u)
    .messages({ 'string.pattern.base': '{{#label}} must not contain control characters' });
