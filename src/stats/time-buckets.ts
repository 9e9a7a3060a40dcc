import { DateTime, IANAZone } from 'luxon';
import { validation } from '../shared/errors/app-error';

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];
export const MAX_BUCKETS = 5000;

/** What a series covers: [from, to) cut into buckets that start at `starts` (epoch ms). */
export interface BucketRange {
  interval: Interval;
  tz: string;
  from: Date;
  to: Date;
  starts: number[];
}

export interface RangeInput {
  interval: Interval;
  tz: string;
  from?: string;
  to?: string;
}

const DEFAULT_SPAN: Record<Interval, Record<string, number>> = {
  hour: { hours: 24 },
  day: { days: 30 },
  week: { weeks: 12 },
  month: { months: 12 },
};

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A `from` or `to` parameter; a date-only `to` means the end of that day (exclusive bound). */
export function parseTime(name: 'from' | 'to', value: string, tz: string): DateTime {
  const time = DateTime.fromISO(value, { zone: tz });
  if (!time.isValid) {
    throw validation(`${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time`, name);
  }
  // A date names its whole day: `to=2024-05-31` includes the 31st.
  return name === 'to' && DATE_ONLY.test(value) ? time.plus({ days: 1 }) : time;
}

/**
 * The buckets of a series in a time zone: whole hours, days, ISO weeks (Monday) or months of
 * that zone, DST included. The first bucket starts at or before `from`.
 */
export function bucketRange(input: RangeInput, now = new Date()): BucketRange {
  const { interval, tz } = input;
  if (!IANAZone.isValidZone(tz)) throw validation(`tz: unknown time zone ${tz}`, 'tz');
  const to = input.to ? parseTime('to', input.to, tz) : DateTime.fromJSDate(now, { zone: tz });
  const from = input.from
    ? parseTime('from', input.from, tz)
    : to.minus(DEFAULT_SPAN[interval]).startOf(interval, { useLocaleWeeks: false });
  if (from >= to) throw validation('from must be before to', 'from');
  const starts: number[] = [];
  for (
    let start = from.startOf(interval, { useLocaleWeeks: false });
    start < to;
    start = start.plus({ [`${interval}s`]: 1 })
  ) {
    if (starts.length === MAX_BUCKETS) {
      throw validation(
        `interval: the range holds more than ${MAX_BUCKETS} ${interval} buckets; choose a longer interval or a shorter range`,
        'interval',
      );
    }
    starts.push(start.toMillis());
  }
  return { interval, tz, from: from.toJSDate(), to: to.toJSDate(), starts };
}

/** Index of the bucket holding `at`, or -1 when it lies before the first. */
export function bucketIndex(starts: number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((starts[mid] as number) <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A bucket's start as the series reports it: ISO 8601 with the zone's offset. */
export function bucketLabel(start: number, tz: string): string {
  return DateTime.fromMillis(start, { zone: tz }).toISO({ suppressMilliseconds: true }) ?? '';
}
