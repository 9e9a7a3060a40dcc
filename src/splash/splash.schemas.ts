import Joi from 'joi';

export interface SplashCreate {
  name: string;
}

/** What an operator may create from the CLI (the API only lists splash pages). */
export const splashCreateSchema = Joi.object<SplashCreate>({
  name: Joi.string()
    .trim()
    .min(1)
    .max(100)
    .pattern(/^[^\p{Cc}]*$/u)
    .required()
    .messages({ 'string.pattern.base': 'name must not contain control characters' }),
});
