import type { IncomingMessage, ServerResponse } from 'node:http';

/** A middleware as Node's HTTP types see it (helmet's and cors's own shape). */
export type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/**
 * The headers a header-only middleware (helmet, CORS) sets for a `GET` with `requestHeaders`,
 * worked out once, as a flat `[name, value, ...]` list for `writeHead`: a response sent before the
 * middleware chain carries exactly the same headers without running it per request.
 */
export function precomputeHeaders(
  middleware: Middleware,
  requestHeaders: IncomingMessage['headers'] = {},
): string[] {
  const headers = new Map<string, [string, string]>();
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.set(name.toLowerCase(), [name, String(value)]);
      return recorder;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader(name: string) {
      return headers.get(name.toLowerCase())?.[1];
    },
  };
  let passed = false;
  middleware(
    { headers: requestHeaders, method: 'GET', url: '/' } as IncomingMessage,
    recorder as unknown as ServerResponse,
    (err) => {
      if (err) throw err;
      passed = true;
    },
  );
  if (!passed) throw new Error('the middleware did not pass the request on synchronously');
  return [...headers.values()].flat();
}

/** Sets the headers `precomputeHeaders` worked out, where the middleware would have run. */
export function setHeaders(headers: readonly string[]): Middleware {
  return (_req, res, next) => {
    for (let i = 0; i < headers.length; i += 2)
      res.setHeader(headers[i] as string, headers[i + 1] as string);
    next();
  };
}
