import type { Dimension } from '../shared/visits/visits.types';
import type { Series } from './stats.service';
import { bucketLabel } from './time-buckets';

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
