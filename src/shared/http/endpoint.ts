import type { Request, RequestHandler } from 'express';
import type Joi from 'joi';
import { currentKey } from '../../auth/auth-state';
import { roleAllows } from '../../auth/roles';
import { allows, type Scope } from '../../auth/scopes';
import { insufficientRole, insufficientScope, type AppError } from '../errors/app-error';
import { validate, type RequestSchemas } from './validate';

/** One answer of an operation: a JSON body described by a joi schema, or another media type. */
export interface ResponseDoc {
  description: string;
  /** JSON body; omit for bodiless answers (redirects, 304). */
  schema?: Joi.Schema;
  /** Non-JSON answers (`image/png`, `text/html`): described, not validated. */
  media?: readonly string[];
  headers?: readonly string[];
}

/**
 * What the OpenAPI document says about a route. Request schemas are the very ones `validate`
 * enforces; the answers come from the schemas declared beside each presenter.
 */
export interface EndpointDoc extends RequestSchemas {
  summary: string;
  description?: string;
  tag: string;
  /**
   * What a key needs to call the route (`*`: a key with every right). Every route under /api that
   * takes a key declares one; a dashboard session is not limited by it.
   */
  scope?: Scope;
  /** Successful (and other non-failure) answers by HTTP status. */
  responses: Readonly<Record<number, ResponseDoc>>;
  /**
   * Failure statuses this route answers beyond the ones its position implies (under /api: 401,
   * 429, 500, 503; 404 with path parameters; 400 with a query; 400/413/415/422 with a body).
   */
  errors?: readonly number[];
  /** Under /api but answered without a key (the document itself). */
  public?: boolean;
  /** A visitor route that answers failures as JSON too, when the page's script asks for it. */
  jsonFailures?: boolean;
  /** An example request body. */
  example?: unknown;
}

/** Why the request's key or role may not use a route needing `scope`; checked without I/O. */
export function scopeRefusal(req: Request, scope: Scope): AppError | undefined {
  const key = currentKey(req);
  if (key && !allows(key.scopes, scope)) return insufficientScope(scope);
  const role = req.auth && 'user' in req.auth ? req.auth.role : undefined;
  if (role && !roleAllows(role, scope)) return insufficientRole(role, scope);
  return undefined;
}

const declarations = new WeakMap<object, EndpointDoc>();

/** The declaration a route handler carries, if any (read by the OpenAPI generator). */
export function endpointDocOf(handler: unknown): EndpointDoc | undefined {
  return typeof handler === 'function' ? declarations.get(handler) : undefined;
}

/**
 * `validate()` plus the route's OpenAPI declaration: every route carries one (in place of
 * `validate`), so the document lists it with the same schemas that check its requests. It also
 * notes the route's template for the request metrics and refuses a key without the route's scope.
 */
export function endpoint(doc: EndpointDoc): RequestHandler<Record<string, string>> {
  const check = doc.params || doc.query || doc.body ? validate(doc) : undefined;
  const { scope } = doc;
  const handler: RequestHandler<Record<string, string>> = (req, res, next) => {
    res.locals.routeTemplate = `${req.baseUrl}${String(req.route?.path ?? '')}`;
    if (scope) {
      const refused = scopeRefusal(req, scope);
      if (refused) return next(refused);
    }
    if (check) check(req, res, next);
    else next();
  };
  declarations.set(handler, doc);
  return handler;
}

/** The matched route's template (`/api/url/:id`), set by its `endpoint`; for metrics and logs. */
export function routeTemplateOf(res: { locals: Record<string, unknown> }): string | undefined {
  return typeof res.locals.routeTemplate === 'string' ? res.locals.routeTemplate : undefined;
}
