import pino, { type DestinationStream, type Logger } from 'pino';

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
): Logger {
  const options = { name, level, redact: { paths: redactPaths, censor: '[redacted]' } };
  if (destination) return pino(options, destination);
  if (level === 'silent') return pino(options);
  // Written in batches (4 KiB, or what 100 ms brought): one write per access-log line was a tenth
  // of an API request's CPU. pino writes what is still buffered when the process exits.
  return pino(options, pino.destination({ dest: 1, minLength: 4096, periodicFlush: 100 }));
}

export type { Logger };
