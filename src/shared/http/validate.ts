import type { RequestHandler } from 'express';
import type Joi from 'joi';
import { AppError } from '../errors/app-error';

export interface RequestSchemas {
  params?: Joi.Schema;
  query?: Joi.Schema;
  body?: Joi.Schema;
}

const joiOptions: Joi.ValidationOptions = { abortEarly: true, stripUnknown: false, convert: true };

function describe(error: Joi.ValidationError): string {
  return error.details[0]?.message.replace(/"/g, '') ?? error.message;
}

/** The dotted path of the first failing value (`links.0.url`), if the error names one. */
export function joiField(error: Joi.ValidationError): string | undefined {
  const path = error.details[0]?.path ?? [];
  return path.length ? path.join('.') : undefined;
}

/**
 * Validates and coerces the request at the edge. The coerced values are written back to
 * `req.params`, `req.body` and `res.locals.query` (Express 5's `req.query` is read-only).
 * Status: an unusable path parameter names no resource (404); bad query values are 400;
 * a body that fails its schema is 422 with the field named in the message and in `field`.
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (req, res, next) => {
    if (schemas.params) {
      const { error, value } = schemas.params.validate(req.params, joiOptions);
      if (error) return next(new AppError(404, 'not_found', 'Not found'));
      req.params = value as typeof req.params;
    }
    if (schemas.query) {
      const { error, value } = schemas.query.validate(req.query, joiOptions);
      if (error) {
        const message = `Invalid query: ${describe(error)}`;
        return next(new AppError(400, 'bad_query', message, { field: joiField(error) }));
      }
      res.locals.query = value;
    }
    if (schemas.body) {
      const body: unknown = req.body ?? {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return next(new AppError(422, 'validation_failed', 'Body must be a JSON object'));
      }
      const { error, value } = schemas.body.validate(body, joiOptions);
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
