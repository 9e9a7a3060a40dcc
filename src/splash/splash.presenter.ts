import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import type { SplashPageRecord } from './splash-page.model';

/** A custom splash page as the spec lists it (4.8). */
export function presentSplash(page: SplashPageRecord) {
  return { id: page.id, name: page.name, date: formatDateTime(page.createdAt) };
}

export const splashJson = record({ id: idJson, name: Joi.string(), date: dateTimeJson });
