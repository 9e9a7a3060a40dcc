import { request as httpRequest } from 'node:http';
import { checkAgainstDocument } from './openapi-check';

export interface TestResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  key?: string;
  body?: unknown;
  /** Sent as-is, without JSON encoding or a Content-Type. */
  rawBody?: string;
  headers?: Record<string, string>;
  redirect?: 'manual' | 'follow';
}

/** One HTTP request to a test app; parses JSON bodies and never follows redirects unless asked. */
export async function request<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    body,
    redirect: options.redirect ?? 'manual',
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.includes('json') && text) parsed = JSON.parse(text);
  // Every answer the suite receives is held to the OpenAPI document, so the two cannot drift.
  await checkAgainstDocument(baseUrl, method, path, {
    status: res.status,
    contentType,
    body: parsed,
  });
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** A client bound to one app and one key. */
export function client(baseUrl: string, key?: string) {
  return {
    get: <T = Record<string, unknown>>(path: string, o: RequestOptions = {}) =>
      request<T>(baseUrl, path, { key, ...o, method: 'GET' }),
    post: <T = Record<string, unknown>>(path: string, body?: unknown, o: RequestOptions = {}) =>
      request<T>(baseUrl, path, { key, body, ...o, method: 'POST' }),
    put: <T = Record<string, unknown>>(path: string, body?: unknown, o: RequestOptions = {}) =>
      request<T>(baseUrl, path, { key, body, ...o, method: 'PUT' }),
    delete: <T = Record<string, unknown>>(path: string, o: RequestOptions = {}) =>
      request<T>(baseUrl, path, { key, ...o, method: 'DELETE' }),
  };
}

export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A list endpoint's body (spec 4.1): the envelope with its items under `Key`. */
export interface ListBody<Key extends string, Item> {
  error: string;
  data: {
    result: number;
    perpage: number;
    currentpage: number;
    nextpage: number;
    maxpage: number;
  } & Record<Key, Item[]>;
}

/**
 * A request through node:http, for what fetch refuses to send: a GET carrying a body, as
 * GemPixel's Python and C# samples do. The body is sent as-is.
 */
export function rawRequest(
  baseUrl: string,
  path: string,
  options: { method: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string | number> = { ...options.headers };
  if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: options.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const json = (res.headers['content-type'] ?? '').includes('json') && text;
        resolve({
          status: res.statusCode ?? 0,
          body: json ? (JSON.parse(text) as Record<string, unknown>) : {},
          text,
        });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * One request of a sweep over the route table: any answer is accepted (downloads included, JSON
 * parsed only when it is `application/json`) and none is held to the OpenAPI document.
 */
export async function sweepRequest(
  baseUrl: string,
  path: string,
  options: { key: string; method: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; body: unknown; text: string }> {
  const headers: Record<string, string> = {
    ...options.headers,
    authorization: `Bearer ${options.key}`,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method: options.method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    redirect: 'manual',
  });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json') && text;
  return { status: res.status, body: json ? (JSON.parse(text) as unknown) : undefined, text };
}
