import type { RequestHandler } from 'express';
import type Joi from 'joi';
import { AppError } from '../errors/app-error';
import { blankStripper } from './lenient';

export interface RequestSchemas {
  params?: Joi.Schema;
  query?: Joi.Schema;
  body?: Joi.Schema;
}

const joiOptions: Joi.ValidationOptions = { abortEarly: true, stripUnknown: false, convert: true };
/** Query strings are filters: one a client adds for another service (`order`, `utm_...`) is ignored. */
const queryOptions: Joi.ValidationOptions = { ...joiOptions, stripUnknown: true };

/** A failure in the words the API answers it with (joi's quotes around the label dropped). */
export function joiMessage(detail: Joi.ValidationErrorItem): string {
  return detail.message.replace(/"/g, '');
}

function describe(error: Joi.ValidationError): string {
  const first = error.details[0];
  return first ? joiMessage(first) : error.message;
}

/** The dotted path of the first failing value (`links.0.url`), if the error names one. */
export function joiField(error: Joi.ValidationError): string | undefined {
  const path = error.details[0]?.path ?? [];
  return path.length ? path.join('.') : undefined;
}

/** Whether a description holds a function anywhere (a computed default, a custom rule). */
function holdsFunction(description: unknown): boolean {
  if (typeof description === 'function') return true;
  if (description === null || typeof description !== 'object') return false;
  return Object.values(description).some(holdsFunction);
}

/**
 * The query a request without one is read as, worked out once: most list calls send none, and
 * joi cost a tenth of such a request's CPU to find the same defaults every time. Each request
 * gets its own shallow copy. Schemas whose outcome could change between calls (a computed
 * default, a custom rule) are validated every time.
 */
function emptyQueryOf(schema: Joi.Schema): (() => unknown) | undefined {
  if (holdsFunction(schema.describe())) return undefined;
  const { error, value } = schema.validate({}, queryOptions);
  if (error || value === null || typeof value !== 'object') return undefined;
  const defaults = value as Record<string, unknown>;
  return () => ({ ...defaults });
}

const isEmpty = (value: object) => {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
};

/**
 * Validates and coerces the request at the edge. The coerced values are written back to
 * `req.params`, `req.body` and `res.locals.query` (Express 5's `req.query` is read-only).
 * Status: an unusable path parameter names no resource (404); bad query values are 400;
 * a body that fails its schema is 422 with the field named in the message and in `field`. Query
 * and body are read with GemPixel's leniency (see lenient.ts), so every endpoint forgives blanks
 * the same way.
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  const query = schemas.query && { schema: schemas.query, strip: blankStripper(schemas.query) };
  const body = schemas.body && { schema: schemas.body, strip: blankStripper(schemas.body) };
  const emptyQuery = schemas.query && emptyQueryOf(schemas.query);
  return (req, res, next) => {
    if (schemas.params) {
      const { error, value } = schemas.params.validate(req.params, joiOptions);
      if (error) return next(new AppError(404, 'not_found', 'Not found'));
      req.params = value as typeof req.params;
    }
    if (emptyQuery && isEmpty(req.query)) {
      res.locals.query = emptyQuery();
    } else if (query) {
      const input = query.strip(req.query as Record<string, unknown>);
      const { error, value } = query.schema.validate(input, queryOptions);
      if (error) {
        const message = `Invalid query: ${describe(error)}`;
        return next(new AppError(400, 'bad_query', message, { field: joiField(error) }));
      }
      res.locals.query = value;
    }
    if (body) {
      // PHP's json_encode([]) writes an empty options array as `[]`: GemPixel reads it as `{}`.
      const sent: unknown = req.body ?? {};
      const input = Array.isArray(sent) && sent.length === 0 ? {} : sent;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return next(new AppError(422, 'validation_failed', 'Body must be a JSON object'));
      }
      const stripped = body.strip(input as Record<string, unknown>);
      const { error, value } = body.schema.validate(stripped, joiOptions);
      if (error) {
        const field = joiField(error);
        return next(new AppError(422, 'validation_failed', describe(error), { field }));
      }
      req.body = value;
    }
    next();
  };
}

/** The query as coerced by `validate({ query })`. */
export function validatedQuery<T>(res: { locals: Record<string, unknown> }): T {
  return res.locals.query as T;
}
