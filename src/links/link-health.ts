import Joi from 'joi';
import { formatOptionalDateTime } from '../shared/format/dates';
import { dateTimeJson } from '../shared/http/responses';

/** What the worker's checks of a monitored link's destination concluded (issue 24, item 5). */
export const HEALTH_STATUSES = ['unknown', 'healthy', 'broken'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** Failed checks in a row that mark a link broken: one failure may be a blip. */
export const FAILURES_TO_BREAK = 2;

/** As stored on the link (`health`); absent on links never monitored. */
export interface LinkHealth {
  status: HealthStatus;
  /** The last check (or the last result taken from another link of the same destination). */
  checked: Date | null;
  /** When `status` began. */
  since: Date | null;
  /** The most recent failed check's error; kept after a recovery, for the owner to read. */
  lastError: string | null;
  /** Failed checks in a row. */
  failures: number;
}

export const UNKNOWN_HEALTH: Readonly<LinkHealth> = Object.freeze({
  status: 'unknown',
  checked: null,
  since: null,
  lastError: null,
  failures: 0,
});

/** One check of a destination: it answered well, it failed, or the address policy refused it. */
export type CheckResult =
  { kind: 'ok' } | { kind: 'failed'; error: string } | { kind: 'refused'; error: string };

/** Reads a stored health (a partial or missing one counts as never checked). */
export function healthOf(stored: Partial<LinkHealth> | null | undefined): LinkHealth {
  if (!stored) return { ...UNKNOWN_HEALTH };
  const status = HEALTH_STATUSES.includes(stored.status as HealthStatus)
    ? (stored.status as HealthStatus)
    : 'unknown';
  return {
    status,
    checked: stored.checked ?? null,
    since: stored.since ?? null,
    lastError: stored.lastError ?? null,
    failures: stored.failures ?? 0,
  };
}

/**
 * The health after a check at `now`. Broken only after FAILURES_TO_BREAK failures in a row,
 * healthy again at the first good check; a refused check (private address) changes nothing but
 * the error and the time, since it says nothing about the destination.
 */
export function nextHealth(previous: LinkHealth, result: CheckResult, now: Date): LinkHealth {
  const become = (status: HealthStatus) => (previous.status === status ? previous.since : now);
  if (result.kind === 'ok')
    return { ...previous, status: 'healthy', since: become('healthy'), checked: now, failures: 0 };
  if (result.kind === 'refused') return { ...previous, checked: now, lastError: result.error };
  const failures = previous.failures + 1;
  const status = failures >= FAILURES_TO_BREAK ? 'broken' : previous.status;
  return { status, since: become(status), checked: now, lastError: result.error, failures };
}

/** The webhook event a change of health fires, if any. */
export function healthEvent(
  before: HealthStatus,
  after: HealthStatus,
): 'link.broken' | 'link.recovered' | null {
  if (after === 'broken' && before !== 'broken') return 'link.broken';
  if (after === 'healthy' && before === 'broken') return 'link.recovered';
  return null;
}

/** `health` in a link's details: dates as the API writes them, the failure count left out. */
export function presentHealth(stored: Partial<LinkHealth> | null | undefined) {
  const health = healthOf(stored);
  return {
    status: health.status,
    checked: formatOptionalDateTime(health.checked),
    since: formatOptionalDateTime(health.since),
    lastError: health.lastError,
  };
}

export const healthJson = Joi.object({
  status: Joi.string()
    .valid(...HEALTH_STATUSES)
    .description('unknown until the first check of a monitored link (and while not monitored)'),
  checked: dateTimeJson.allow(null).description('the last check of the destination'),
  since: dateTimeJson.allow(null).description('when the link entered this status'),
  lastError: Joi.string()
    .allow(null)
    .description('the most recent failed check, kept after a recovery'),
}).description('what the worker found at the destination of a monitored link');
