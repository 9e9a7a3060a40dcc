export const SERIES_INTERVALS = ['day', 'week', 'month'] as const;
export type SeriesInterval = (typeof SERIES_INTERVALS)[number];

export interface SeriesPoint {
  /** Start of the bucket, `YYYY-MM-DD` (UTC). */
  t: string;
  clicks: number;
}

const DAY_MS = 86_400_000;

/** The UTC start of the bucket holding `at`; weeks start on Monday (ISO 8601). */
export function bucketStart(at: Date, interval: SeriesInterval): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (interval === 'day') return day;
  if (interval === 'week') return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

function next(start: Date, interval: SeriesInterval): Date {
  if (interval === 'day') return new Date(start.getTime() + DAY_MS);
  if (interval === 'week') return new Date(start.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** Clicks per bucket from `from` to `to`, every bucket present (zeros included). */
export function clickSeries(
  times: readonly Date[],
  from: Date,
  to: Date,
  interval: SeriesInterval,
): SeriesPoint[] {
  const counts = new Map<number, number>();
  for (const at of times) {
    if (at < from || at > to) continue;
    const key = bucketStart(at, interval).getTime();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const points: SeriesPoint[] = [];
  for (let t = bucketStart(from, interval); t <= to; t = next(t, interval)) {
    points.push({ t: t.toISOString().slice(0, 10), clicks: counts.get(t.getTime()) ?? 0 });
  }
  return points;
}
