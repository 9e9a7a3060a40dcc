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
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
