import Joi from 'joi';
import { mapOf, record } from '../shared/http/responses';
import { DIMENSIONS, type Dimension } from '../visits/visits.types';
import type { Series } from './stats.service';
import { bucketLabel, INTERVALS } from './time-buckets';

/** A click series: every bucket present, zeros included; `top` only when `by` was asked. */
export function presentSeries(series: Series, by: Dimension | undefined) {
  const { range, points, totals, top } = series;
  return {
    interval: range.interval,
    tz: range.tz,
    from: bucketLabel(range.from.getTime(), range.tz),
    to: bucketLabel(range.to.getTime(), range.tz),
    series: points.map((p) => ({
      t: bucketLabel(p.start, range.tz),
      clicks: p.clicks,
      uniqueClicks: p.uniqueClicks,
    })),
    totals,
    ...(by ? { by, top: top ?? {} } : {}),
  };
}

const count = Joi.number().integer().min(0);
const bucketJson = Joi.string()
  .isoDate()
  .description('ISO 8601 start of a bucket, in the asked time zone')
  .example('2026-01-31T00:00:00Z');

/** What `presentSeries` writes. */
export const seriesJson = record({
  interval: Joi.string().valid(...INTERVALS),
  tz: Joi.string().example('UTC'),
  from: bucketJson,
  to: bucketJson,
  series: Joi.array().items(record({ t: bucketJson, clicks: count, uniqueClicks: count })),
  totals: record({ clicks: count, uniqueClicks: count }),
  by: Joi.string()
    .valid(...DIMENSIONS)
    .optional(),
  top: mapOf(Joi.string()).optional().description('With `by`: the label of each top value'),
});
