/**
 * Every `code` a failure body can carry, with its HTTP status. Clients switch on the code, so a
 * code never changes meaning; the OpenAPI document and the README list this catalogue.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, description: 'The request is malformed in a way no field names.' },
  bad_json: {
    status: 400,
    description: 'The body is not valid JSON, or nests arrays and objects deeper than 32 levels.',
  },
  bad_query: { status: 400, description: 'A query parameter is invalid (`field` names it).' },
  bad_uri: { status: 400, description: 'The URL has malformed percent-encoding.' },
  bad_encoding: {
    status: 400,
    description: 'The body does not match its `Content-Encoding` (gzip, deflate, br).',
  },
  unauthorized: {
    status: 401,
    description: 'The API key is missing, malformed, unknown or expired.',
  },
  forbidden: { status: 403, description: 'The key is valid but may not do this.' },
  insufficient_scope: {
    status: 403,
    description: 'The key lacks the scope the route needs; the message names it.',
  },
  insufficient_role: {
    status: 403,
    description: "A team member's role does not allow this in the account (the message names it).",
  },
  not_found: { status: 404, description: 'No such route, or no such resource of yours.' },
  conflict: { status: 409, description: 'The value is already taken (alias, slug, domain, ...).' },
  gone: { status: 410, description: 'The resource existed but is no longer available.' },
  payload_too_large: { status: 413, description: 'The body is larger than BODY_LIMIT.' },
  unsupported_media_type: {
    status: 415,
    description: 'The body is not `application/json`, or its encoding is not supported.',
  },
  validation_failed: {
    status: 422,
    description: 'A body field is missing or invalid; `field` names it.',
  },
  rate_limited: {
    status: 429,
    description: 'Too many requests in the window; `Retry-After` says when to try again.',
  },
  internal: { status: 500, description: 'An unexpected fault; it is logged with the request id.' },
  unavailable: {
    status: 503,
    description: 'MongoDB or Redis cannot be reached right now; retry shortly.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const errorCodeNames = Object.keys(ERROR_CODES) as ErrorCode[];
