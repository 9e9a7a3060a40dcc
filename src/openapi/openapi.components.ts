import { errorCodeNames } from '../shared/errors/error-codes';

export const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
] as const;

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });
const stringHeader = (description: string) => ({ description, schema: { type: 'string' } });

/** Security schemes, the failure body and the shared headers. */
export function openApiComponents(): Record<string, unknown> {
  return {
    securitySchemes: {
      Bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'The account API key: `Authorization: Bearer <API_KEY>`.',
      },
      Token: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: "GemPixel clients' form of the same key: `Authorization: Token <API_KEY>`.",
      },
    },
    schemas: {
      Failure: {
        type: 'object',
        required: ['error', 'message', 'code'],
        additionalProperties: false,
        properties: {
          error: { const: 1 },
          message: { type: 'string', examples: ['url is required'] },
          code: { type: 'string', enum: errorCodeNames, examples: ['validation_failed'] },
          field: {
            type: 'string',
            description: 'The body field (422) or query parameter (400) at fault.',
            examples: ['url'],
          },
        },
      },
    },
    headers: {
      'X-RateLimit-Limit': integerHeader('Requests allowed per window (30 on the default plan).'),
      'X-RateLimit-Remaining': integerHeader('Requests left in the current window.'),
      'X-RateLimit-Reset': integerHeader('When the window resets, in Unix seconds.'),
      RateLimit: stringHeader('IETF draft-8 form: `"<policy>";r=<remaining>;t=<seconds>`.'),
      'RateLimit-Policy': stringHeader('IETF draft-8 form: `"<policy>";q=<limit>;w=<window>`.'),
      'Retry-After': integerHeader('Seconds to wait before trying again.'),
      'WWW-Authenticate': stringHeader('`Bearer`'),
    },
  };
}
