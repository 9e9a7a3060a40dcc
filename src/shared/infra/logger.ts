import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyStream } from './pretty-log';

/** `pretty`: lines a person reads (pino-pretty); `json`: one JSON object per line, for machines. */
export type LogFormat = 'pretty' | 'json';

/** `auto` is readable lines on a terminal and JSON lines anywhere else (a pipe, a file, a container). */
export function resolveLogFormat(
  configured: 'auto' | LogFormat,
  stdout: { isTTY?: boolean } = process.stdout,
): LogFormat {
  if (configured !== 'auto') return configured;
  return stdout.isTTY ? 'pretty' : 'json';
}

/** Paths that may carry secrets; pino replaces their values before anything is written. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  'apiKey',
  'body.password',
  '*.password',
  '*.apiKey',
];

export function createLogger(
  level: string,
  name = 'linkqr',
  destination?: DestinationStream,
  format: LogFormat = 'json',
): Logger {
  const options = { name, level, redact: { paths: redactPaths, censor: '[redacted]' } };
  // Redaction runs before any stream sees the entry: a pretty line never shows a secret either.
  if (format === 'pretty' && level !== 'silent') return pino(options, prettyStream(destination));
  if (destination) return pino(options, destination);
  if (level === 'silent') return pino(options);
  // Written in batches (4 KiB, or what 100 ms brought): one write per access-log line was a tenth
  // of an API request's CPU. pino writes what is still buffered when the process exits.
  return pino(options, pino.destination({ dest: 1, minLength: 4096, periodicFlush: 100 }));
}

export type { Logger };
