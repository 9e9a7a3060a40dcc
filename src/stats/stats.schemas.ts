import Joi from 'joi';
import { validation } from '../shared/errors/app-error';
import { joiField } from '../shared/http/validate';
import { DIMENSIONS, type Dimension } from '../visits/visits.types';
import { INTERVALS, type RangeInput } from './time-buckets';

export interface StatsQuery extends RangeInput {
  by?: Dimension;
}

export const statsQuerySchema = Joi.object<StatsQuery>({
  interval: Joi.string()
    .valid(...INTERVALS)
    .default('day'),
  tz: Joi.string().max(64).default('UTC'),
  from: Joi.string().max(40),
  to: Joi.string().max(40),
  by: Joi.string().valid(...DIMENSIONS),
});

/**
 * The series query; every problem with it is a 422 naming the parameter (a bad range is a
 * request the caller can fix, unlike a malformed page number).
 */
export function parseStatsQuery(query: unknown): StatsQuery {
  const { error, value } = statsQuerySchema.validate(query, { convert: true });
  if (error) {
    const message = error.details[0]?.message.replace(/"/g, '') ?? error.message;
    throw validation(message, joiField(error));
  }
  return value;
}
