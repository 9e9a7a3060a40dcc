import Joi from 'joi';

const DATE_TIME_INPUT =
  /^(\d{4})-(\d{2})-(\d{2})(?:(?: |T)(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * The three date forms GemPixel clients send: the spec's `YYYY-MM-DD HH:MM:SS` (UTC, like every
 * date the API writes), ISO 8601 with an optional offset (UTC when absent), and a bare
 * `YYYY-MM-DD`, which means the end of that day in UTC (23:59:59), so "expires on the 5th" still
 * works on the 5th. Days that do not exist (Feb 31) are refused, where `Date` would silently roll
 * them into the next month; the server's time zone never matters.
 */
export function parseDateTimeInput(value: string): Date | null {
  const m = DATE_TIME_INPUT.exec(value);
  if (!m) return null;
  const dateOnly = m[4] === undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day!) return null;
  if (hour! > 23 || minute! > 59 || second! > 59) return null;
  const [, y, mo, d] = m;
  if (dateOnly) return new Date(`${y}-${mo}-${d}T23:59:59Z`);
  const [h, mi, sec = '00', fraction = '', zone = 'Z'] = m.slice(4);
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}${fraction}${zone}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

const DATE_MESSAGE =
  '{{#label}} must be a date (YYYY-MM-DD HH:MM:SS in UTC, ISO 8601, or YYYY-MM-DD for the end of that day in UTC)';

/** A date-time input field: any of the forms `parseDateTimeInput` reads, coerced to a `Date`. */
export const dateTimeInput = Joi.string()
  .custom((value: string, helpers) => parseDateTimeInput(value) ?? helpers.error('any.invalid'))
  .messages({ 'any.invalid': DATE_MESSAGE, 'string.base': DATE_MESSAGE });
