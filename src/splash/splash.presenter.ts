import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import { DEFAULT_SPLASH_COUNTER, type SplashPageRecord } from './splash-page.model';

/** A custom splash page as the spec lists it (4.8), with its content added. */
export function presentSplash(page: SplashPageRecord) {
  return {
    id: page.id,
    name: page.name,
    date: formatDateTime(page.createdAt),
    title: page.title ?? '',
    message: page.message ?? '',
    image: page.image ?? '',
    link: page.link ?? '',
    button: page.button ?? '',
    counter: page.counter ?? DEFAULT_SPLASH_COUNTER,
  };
}

export const splashJson = record({
  id: idJson,
  name: Joi.string(),
  date: dateTimeJson,
  title: Joi.string().allow(''),
  message: Joi.string().allow(''),
  image: Joi.string().allow(''),
  link: Joi.string().allow(''),
  button: Joi.string().allow(''),
  counter: Joi.number().integer().min(0),
});
