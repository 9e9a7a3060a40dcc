/** A failure the API answers with `{"error":1,"message":...}` and the given HTTP status. */
export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.headers = options?.headers ?? {};
  }

  readonly headers: Record<string, string>;
}

export const badRequest = (message: string) => new AppError(400, 'bad_request', message);
export const unauthorized = (message: string) =>
  new AppError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const gone = (message: string) => new AppError(410, 'gone', message);
export const payloadTooLarge = (message: string) => new AppError(413, 'payload_too_large', message);
export const unsupportedMediaType = (message: string) =>
  new AppError(415, 'unsupported_media_type', message);
export const validation = (message: string) => new AppError(422, 'validation', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', message, {
    headers: { 'Retry-After': String(Math.max(0, retryAfterSeconds)) },
  });
export const serviceUnavailable = (message: string, cause?: unknown) =>
  new AppError(503, 'unavailable', message, { cause });
