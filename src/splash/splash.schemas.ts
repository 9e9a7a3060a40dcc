import Joi from 'joi';
import { longUrl } from '../links/links.schemas';
import { displayName, visitorText } from '../shared/http/fields';

export interface SplashCreate {
  name: string;
  title?: string;
  message?: string;
  image?: string;
  link?: string;
  button?: string;
  counter?: number;
}

export type SplashUpdate = Partial<SplashCreate>;

const fields = {
  name: displayName,
  title: visitorText(200),
  message: visitorText(2000),
  image: longUrl.allow(''),
  link: longUrl.allow(''),
  button: visitorText(100),
  counter: Joi.number().integer().min(0).max(60),
};

/** `POST /api/splash/add` (and the CLI's splash:add). */
export const splashCreateSchema = Joi.object<SplashCreate>({
  ...fields,
  name: displayName.required(),
});

export const splashUpdateSchema = Joi.object<SplashUpdate>(fields)
  .min(1)
  .messages({ 'object.min': `at least one of ${Object.keys(fields).join(', ')} is required` });
