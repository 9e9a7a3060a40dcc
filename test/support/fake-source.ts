import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface FakeSource {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

/** A JSON answer, or with `type` the bytes of another kind (an image). */
export type FakeHandler = (
  url: URL,
  base: string,
) => { status?: number; body: unknown } | { status?: number; type: string; bytes: Buffer };

/**
 * A source API on a loopback port serving `handle`'s JSON. Request `tooManyAt` (1-based) answers
 * 429 with `Retry-After: 1` and request `failAt` a 503, each once, as real services do under load.
 */
export async function startFakeSource(
  handle: FakeHandler,
  faults: { tooManyAt?: number; failAt?: number } = {},
): Promise<FakeSource> {
  const requests: FakeRequest[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const n = requests.length;
    if (n === faults.tooManyAt) {
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
      res.end('{"message":"slow down"}');
      return;
    }
    if (n === faults.failAt) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('unavailable');
      return;
    }
    const answer = handle(new URL(req.url ?? '/', base), base);
    if ('bytes' in answer) {
      res.writeHead(answer.status ?? 200, { 'content-type': answer.type });
      res.end(answer.bytes);
      return;
    }
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Items `start`..`start + size` of `all`, and how many pages of `size` it has. */
export function pageOf<T>(all: T[], page: number, size: number) {
  return { items: all.slice((page - 1) * size, page * size), pages: Math.ceil(all.length / size) };
}
