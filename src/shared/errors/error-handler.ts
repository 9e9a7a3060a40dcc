import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import Joi from 'joi';
import type { Logger } from 'pino';
import { TOO_DEEP_MESSAGE } from '../http/json-body';
import { escapeHtml, sendPage } from '../http/pages';
import { AppError, notFound, serviceUnavailable } from './app-error';
import type { ErrorCode } from './error-codes';
import { isInfrastructureUnavailable, isMongoFailover } from './infra-errors';
import { isDuplicateKeyError } from '../db/duplicate-key';
import { joiField } from '../http/validate';
import { isMongoError, mongoHealth, UNAVAILABLE_MESSAGE } from '../infra/dependencies';

/** What body-parser, raw-body and the router attach to the errors they raise (http-errors). */
interface HttpError extends Error {
  type?: string;
  status?: number;
  code?: string;
}

/** Messages for the parser failures a client can cause, by body-parser's `type`. */
const parserMessages: Record<string, [status: number, code: ErrorCode, message: string]> = {
  'entity.parse.failed': [400, 'bad_json', 'Malformed JSON body'],
  'entity.too.deep': [400, 'bad_json', TOO_DEEP_MESSAGE],
  'entity.too.large': [413, 'payload_too_large', 'Request body is too large'],
  'parameters.too.many': [413, 'payload_too_large', 'Too many form fields'],
  'encoding.unsupported': [415, 'unsupported_media_type', 'Unsupported body encoding'],
  'charset.unsupported': [415, 'unsupported_media_type', 'Unsupported body encoding'],
  'request.aborted': [400, 'bad_request', 'Request body was cut short'],
  'request.size.invalid': [400, 'bad_request', 'Request body does not match its Content-Length'],
};

/** A client error raised by a parser (body, form, URI); null for anything else. */
function fromParser(err: HttpError): AppError | null {
  const known = err.type ? parserMessages[err.type] : undefined;
  if (known) return new AppError(known[0], known[1], known[2]);
  if (err instanceof URIError && err.status === 400)
    return new AppError(400, 'bad_uri', 'Malformed percent-encoding in the URL');
  if (typeof err.status !== 'number' || err.status < 400 || err.status >= 500) return null;
  // zlib and brotli codes: a body labelled gzip/deflate/br that is not.
  if (err.code?.startsWith('Z_') || err.code?.startsWith('ERR__ERROR'))
    return new AppError(400, 'bad_encoding', 'Request body does not match its Content-Encoding');
  return new AppError(err.status, 'bad_request', 'Malformed request');
}

/** Maps any thrown value onto the AppError the client sees. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (Joi.isError(err)) {
    const message = err.details[0]?.message ?? err.message;
    return new AppError(422, 'validation_failed', message, { field: joiField(err) });
  }
  if (err instanceof Error) {
    const parsed = fromParser(err as HttpError);
    if (parsed) return parsed;
  }
  if (isDuplicateKeyError(err)) {
    const field = Object.keys(err.keyValue ?? {})[0];
    return new AppError(409, 'conflict', field ? `${field} is already taken` : 'Already exists');
  }
  if (isInfrastructureUnavailable(err)) {
    // An election ends by itself within seconds: the next request tries again.
    if (isMongoError(err) && !isMongoFailover(err)) mongoHealth.markDown();
    return serviceUnavailable(UNAVAILABLE_MESSAGE, err);
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

/** `/api` answers JSON; every other route is seen by a visitor's browser. */
/** The API, and the dashboard's session-authenticated mirror of it, answer JSON. */
function isApiRequest(req: Request): boolean {
  return /^\/(?:app\/)?api(?:[/?]|$)/.test(req.originalUrl);
}

function sendErrorPage(res: Response, error: AppError): void {
  const title = error.status >= 500 ? 'Something went wrong' : 'This request cannot be answered';
  sendPage(
    res,
    error.status,
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(error.message)}.</p>`,
  );
}

/**
 * The single place that turns failures into answers: the spec's `{"error":1,"message":...}` on
 * `/api`, an HTML page for visitors.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    const log = req.log ?? logger;
    if (appError.status >= 500 && appError.status !== 503) {
      log.error({ err: appError.cause ?? err, code: appError.code }, 'request failed');
    } else if (appError.status === 503) {
      log.warn({ err: (appError.cause as Error | undefined)?.message }, 'dependency unavailable');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    if (isApiRequest(req)) res.status(appError.status).json(failureBody(appError));
    else sendErrorPage(res, appError);
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(notFound(`No route for ${req.method} ${req.path}`));
};
