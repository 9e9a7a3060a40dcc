import type { Express } from 'express';
import { ERROR_CODES, errorCodeNames } from '../shared/errors/error-codes';
import type { EndpointDoc, ResponseDoc } from '../shared/http/endpoint';
import { toJsonSchema, type JsonSchema } from './joi-json-schema';
import { registeredRoutes, type RegisteredRoute } from './route-walk';
import { openApiComponents, RATE_LIMIT_HEADERS } from './openapi.components';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  servers: { url: string }[];
  tags: { name: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
}

export interface GeneratedDocument {
  document: OpenApiDocument;
  /** Routes the app answers that carry no `endpoint(...)`/`documented(...)` declaration. */
  undocumented: RegisteredRoute[];
}

const API_PREFIX = '/api/';

/** The service's own routes outside /api: not a visitor's, so not under the public rate limit. */
const SERVICE_ROUTE = /^\/(?:app|docs|metrics|healthz|readyz)(?:\/|$)/;

/**
 * Statuses any route can answer (500), plus, on a visitor route, 429 and 503, and on a key-protected /api
 * route, 401, 429, 503 (MongoDB or Redis away) and those its schemas imply.
 */
function impliedFailures(route: RegisteredRoute, doc: EndpointDoc): number[] {
  const statuses = new Set([500, ...(doc.errors ?? [])]);
  // Malformed percent-encoding in a path parameter: `bad_uri`.
  if (route.template.includes('{')) statuses.add(400);
  // Visitor routes: the per-address limit (PUBLIC_RATE_LIMIT), fast path included (L3), and the
  // page of a branded domain whose ownership is not proven (M6).
  if (!route.path.startsWith(API_PREFIX) && !SERVICE_ROUTE.test(route.path)) {
    statuses.add(429);
    statuses.add(503);
  }
  if (!route.path.startsWith(API_PREFIX) || doc.public) return [...statuses].sort((a, b) => a - b);
  [401, 429, 503].forEach((s) => statuses.add(s));
  if (doc.scope) statuses.add(403);
  if (doc.params) statuses.add(404);
  if (doc.query) statuses.add(400);
  if (doc.body) [400, 413, 415, 422].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

function failureResponse(
  status: number,
  rateLimited: boolean,
  api: boolean,
  jsonFailures = false,
): Record<string, unknown> {
  const codes = errorCodeNames.filter((c) => ERROR_CODES[c].status === status);
  const failureJson = { schema: { $ref: '#/components/schemas/Failure' } };
  // Visitors' routes answer failures as an HTML page (see the error handler).
  if (!api)
    return {
      description: 'Failure page',
      content: { 'text/html': {}, ...(jsonFailures ? { 'application/json': failureJson } : {}) },
    };
  const headers: Record<string, unknown> = rateLimited ? rateLimitHeaderRefs() : {};
  if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  if (status === 401)
    headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
  return {
    description: codes.length ? `Failure: ${codes.map((c) => `\`${c}\``).join(', ')}` : 'Failure',
    headers,
    content: { 'application/json': failureJson },
  };
}

function rateLimitHeaderRefs(): Record<string, unknown> {
  return Object.fromEntries(
    RATE_LIMIT_HEADERS.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
}

function successResponse(response: ResponseDoc, rateLimited: boolean): Record<string, unknown> {
  const headers: Record<string, unknown> = rateLimited ? rateLimitHeaderRefs() : {};
  for (const name of response.headers ?? []) headers[name] = { schema: { type: 'string' } };
  const content: Record<string, unknown> = {};
  if (response.schema) content['application/json'] = { schema: toJsonSchema(response.schema) };
  for (const media of response.media ?? []) content[media] = {};
  return {
    description: response.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

function parameters(route: RegisteredRoute, doc: EndpointDoc): unknown[] {
  const pathSchema = doc.params ? toJsonSchema(doc.params) : undefined;
  const pathProps = (pathSchema?.properties ?? {}) as Record<string, JsonSchema>;
  const names = [...route.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const inPath = names.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: pathProps[name] ?? { type: 'string' },
  }));
  const querySchema = doc.query ? toJsonSchema(doc.query) : undefined;
  const required = new Set((querySchema?.required ?? []) as string[]);
  const inQuery = Object.entries((querySchema?.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      schema,
    }),
  );
  return [...inPath, ...inQuery];
}

function operationId(route: RegisteredRoute): string {
  const words = route.template
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return route.method + words.join('');
}

function operation(route: RegisteredRoute, doc: EndpointDoc): Record<string, unknown> {
  const isApi = route.path.startsWith(API_PREFIX);
  const rateLimited = isApi && !doc.public;
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    responses[status] = successResponse(response, rateLimited);
  }
  for (const status of impliedFailures(route, doc)) {
    responses[String(status)] ??= failureResponse(status, rateLimited, isApi, doc.jsonFailures);
  }
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    parameters: parameters(route, doc),
    responses,
  };
  if (!isApi || doc.public) op.security = [];
  else if (doc.scope) {
    // OpenAPI 3.1 lets a non-OAuth requirement list roles: here, the key's scope the route needs.
    op['x-scope'] = doc.scope;
    op.security = [{ Bearer: [doc.scope] }, { Token: [doc.scope] }];
  }
  if (doc.body) {
    const example = doc.example === undefined ? {} : { example: doc.example };
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: toJsonSchema(doc.body), ...example } },
    };
  }
  return op;
}

/**
 * The OpenAPI 3.1 document of everything the app answers, built from the routes Express holds:
 * the joi schemas their `validate` enforces and the response schemas beside the presenters.
 */
export function generateOpenApi(app: Express, publicUrl: string): GeneratedDocument {
  const paths: OpenApiDocument['paths'] = {};
  const undocumented: RegisteredRoute[] = [];
  const tags = new Set<string>();
  for (const route of registeredRoutes(app)) {
    if (!route.doc) {
      undocumented.push(route);
      continue;
    }
    tags.add(route.doc.tag);
    const item = (paths[route.template] ??= {});
    item[route.method] = operation(route, route.doc);
  }
  return {
    document: {
      openapi: '3.1.0',
      info: {
        title: 'linkqr API',
        version: '1.0.0',
        summary: 'Short links, QR codes and their statistics (GemPixel-compatible).',
        description: API_DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl }],
      tags: [...tags].map((name) => ({ name })),
      security: [{ Bearer: [] }, { Token: [] }],
      paths,
      components: openApiComponents(),
    },
    undocumented,
  };
}

const API_DESCRIPTION = [
  'Every `/api` request carries `Authorization: Bearer <API_KEY>` (or `Token <API_KEY>`, as',
  'GemPixel clients send it). Bodies are JSON. Successes answer HTTP 200 with `error: 0`',
  '(the string `"0"` in list envelopes); failures answer a 4xx/5xx status with',
  '`{"error":1,"message":...,"code":...}` and, for a 422, the `field` at fault.',
  '',
  '**Error codes**',
  '',
  '| code | status | meaning |',
  '|---|---|---|',
  ...errorCodeNames.map(
    (c) => `| \`${c}\` | ${ERROR_CODES[c].status} | ${ERROR_CODES[c].description} |`,
  ),
  '',
  '**Rate limits**: every `/api` answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and',
  '`X-RateLimit-Reset` (plus the IETF `RateLimit` and `RateLimit-Policy` fields); a 429 says in',
  '`Retry-After` how many seconds to wait.',
  '',
  '**Lists** take `limit` (1-100, default 15) and `page` (from 1).',
  '',
  '**Scopes**: each operation names the scope a key needs (`x-scope`, and in its `security`):',
  '`*`, or `<resource>:read` / `<resource>:write`, where `write` implies `read`. A key without',
  'it gets 403 `insufficient_scope`; the default key (the one `user:create` prints) has `*`.',
].join('\n');
