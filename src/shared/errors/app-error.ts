import type { ErrorCode } from './error-codes';

interface AppErrorOptions {
  cause?: unknown;
  headers?: Record<string, string>;
  /** The request field at fault (a 422's body field, a 400's query parameter). */
  field?: string;
}

/**
 * A failure the API answers with `{"error":1,"message":...,"code":...}` and the given HTTP status.
 * `code` is one of the catalogue in error-codes.ts, so every code a client can meet is documented.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly headers: Record<string, string>;
  readonly field: string | undefined;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    options?: AppErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.headers = options?.headers ?? {};
    this.field = options?.field;
  }
}

export const badRequest = (message: string) => new AppError(400, 'bad_request', message);
export const unauthorized = (message: string) =>
  new AppError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const insufficientScope = (scope: string) =>
  new AppError(403, 'insufficient_scope', `Forbidden: this key lacks the scope ${scope}`);
export const insufficientRole = (role: string, scope: string) =>
  new AppError(403, 'insufficient_role', `Forbidden: the ${role} role cannot use ${scope}`);
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const gone = (message: string) => new AppError(410, 'gone', message);
export const payloadTooLarge = (message: string) => new AppError(413, 'payload_too_large', message);
export const unsupportedMediaType = (message: string) =>
  new AppError(415, 'unsupported_media_type', message);
export const validation = (message: string, field?: string) =>
  new AppError(422, 'validation_failed', message, { field });
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', message, {
    headers: { 'Retry-After': String(Math.max(0, retryAfterSeconds)) },
  });
/** Seconds a client waits before retrying a 503 (an election takes about as long). */
export const UNAVAILABLE_RETRY_AFTER_S = 5;
export const serviceUnavailable = (message: string, cause?: unknown) =>
  new AppError(503, 'unavailable', message, {
    cause,
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
  });
