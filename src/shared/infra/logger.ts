import pino, { type Logger } from 'pino';

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

export function createLogger(level: string, name = 'linkqr'): Logger {
  return pino({ name, level, redact: { paths: redactPaths, censor: '[redacted]' } });
}

export type { Logger };
