import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/** The short name each process goes by on a terminal. */
const PROCESS_LABELS: Record<string, string> = {
  'linkqr-launcher': 'start',
  'linkqr-api': 'api',
  'linkqr-worker': 'worker',
  'linkqr-cli': 'cli',
};
const LABEL_WIDTH = 6;
/** What the line's head already says, or a person does not need to read. */
const NOT_SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'reqId', 'err']);
const MAX_VALUE = 160;
const ERROR_LEVEL = 50;

function shown(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')
        ? value.join(', ')
        : JSON.stringify(value);
  const single = /[\s=]/.test(text) && typeof value === 'string' ? JSON.stringify(text) : text;
  return single.length > MAX_VALUE ? `${single.slice(0, MAX_VALUE - 1)}…` : single;
}

interface LoggedError {
  message?: unknown;
  stack?: unknown;
}

/**
 * One readable line per log entry: the process, the message and its fields as `key=value`. An
 * access-log entry reads as `GET /api/account 200 1.4 ms`; an error's stack follows its line.
 */
export function prettyMessage(log: Record<string, unknown>): string {
  const name = typeof log.name === 'string' ? log.name : '';
  const label = (PROCESS_LABELS[name] ?? name.replace(/^linkqr-/, '')).padEnd(LABEL_WIDTH);
  const skip = new Set(NOT_SHOWN);
  let message = typeof log.msg === 'string' ? log.msg : '';
  if (
    (message === 'request completed' || message === 'request failed') &&
    typeof log.method === 'string'
  ) {
    message = `${log.method} ${String(log.path)} ${String(log.status)} ${String(log.ms)} ms`;
    for (const key of ['method', 'path', 'status', 'ms']) skip.add(key);
  }
  // A field the message already says in words (a folder, a list of names) is not said twice.
  const said = (value: unknown): boolean =>
    Array.isArray(value)
      ? value.length > 0 && value.every((v) => message.includes(String(v)))
      : typeof value === 'string' && value.length > 3 && message.includes(value);
  const fields = Object.entries(log)
    .filter(([key, value]) => !skip.has(key) && value !== undefined && !said(value))
    .map(([key, value]) => `${key}=${shown(value)}`);
  const err = log.err as LoggedError | string | undefined;
  let stack = '';
  if (typeof err === 'string') fields.unshift(`err=${shown(err)}`);
  else if (err && typeof err === 'object') {
    fields.unshift(`err=${shown(String(err.message ?? ''))}`);
    if (typeof err.stack === 'string' && Number(log.level) >= ERROR_LEVEL) {
      stack = `\n${err.stack.replace(/^/gm, '    ')}`;
    }
  }
  return `${label} ${message}${fields.length ? `  ${fields.join(' ')}` : ''}${stack}`;
}

/** pino-pretty writing those lines (with the time and the level first) to stdout, or `destination`. */
export function prettyStream(
  destination?: DestinationStream | NodeJS.WritableStream,
  colorize?: boolean,
): DestinationStream {
  return pretty({
    translateTime: 'SYS:HH:MM:ss',
    messageFormat: (log) => prettyMessage(log),
    hideObject: true,
    ignore: 'pid,hostname,name',
    ...(colorize === undefined ? {} : { colorize }),
    ...(destination ? { destination } : {}),
  });
}
