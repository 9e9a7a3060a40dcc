import type { ErrorRequestHandler, RequestHandler } from 'express';
import Joi from 'joi';
import type { Logger } from 'pino';
import { AppError, notFound, serviceUnavailable } from './app-error';
import { isInfrastructureUnavailable } from './infra-errors';
import { isDuplicateKeyError } from '../db/duplicate-key';
import { joiField } from '../http/validate';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Maps any thrown value onto the AppError the client sees. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (Joi.isError(err)) {
    const message = err.details[0]?.message ?? err.message;
    return new AppError(422, 'validation_failed', message, { field: joiField(err) });
  }
  const bp = err as BodyParserError;
  if (bp instanceof Error && typeof bp.type === 'string') {
    if (bp.type === 'entity.parse.failed')
      return new AppError(400, 'bad_json', 'Malformed JSON body');
    if (bp.type === 'entity.too.large')
      return new AppError(413, 'payload_too_large', 'Request body is too large');
    if (bp.type === 'encoding.unsupported' || bp.type === 'charset.unsupported')
      return new AppError(415, 'unsupported_media_type', 'Unsupported body encoding');
  }
  if (isDuplicateKeyError(err)) {
    const field = Object.keys(err.keyValue ?? {})[0];
    return new AppError(409, 'conflict', field ? `${field} is already taken` : 'Already exists');
  }
  if (isInfrastructureUnavailable(err)) {
    return serviceUnavailable('Service temporarily unavailable, try again shortly', err);
  }
  return new AppError(500, 'internal', 'Internal server error', { cause: err });
}

/** The failure body: the spec's `{"error":1,"message":...}` plus a stable `code` and the `field`. */
export function failureBody(appError: AppError) {
  return {
    error: 1 as const,
    message: appError.message,
    code: appError.code,
    ...(appError.field === undefined ? {} : { field: appError.field }),
  };
}

/** The single place that turns failures into the failure body. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    const log = req.log ?? logger;
    if (appError.status >= 500) {
      log.error({ err: appError.cause ?? err, code: appError.code }, 'request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.status(appError.status).json(failureBody(appError));
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(notFound(`No route for ${req.method} ${req.path}`));
};
