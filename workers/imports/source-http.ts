import http from 'node:http';
import https from 'node:https';
import { pinnedLookup } from '../../src/qr-codes/logo/logo-fetch';
import { resolveWebhookTarget, type TargetPolicy } from '../../src/webhooks/webhook-target';

/** A source that answered in a way an import cannot go on from. The message never holds the key. */
export class SourceError extends Error {
  override name = 'SourceError';
}

export interface SourceHttpOptions {
  policy: TargetPolicy;
  /** First 5xx backoff (doubles each retry). */
  retryBaseMs?: number;
  /** Retries of one request after a 429 or 5xx before the import fails. */
  maxRetries?: number;
  /** The longest Retry-After honoured. */
  maxWaitMs?: number;
  timeoutMs?: number;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const MAX_BODY = 32 * 1024 * 1024;

function getOnce(url: URL, headers: Record<string, string>, opts: SourceHttpOptions) {
  return resolveWebhookTarget(url, opts.policy).then(
    (addresses) =>
      new Promise<Answer>((resolve, reject) => {
        const transport = url.protocol === 'https:' ? https : http;
        const req = transport.get(
          url,
          {
            lookup: pinnedLookup(addresses),
            headers: { accept: 'application/json', ...headers },
            signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > MAX_BODY) res.destroy(new SourceError('source answer is too large'));
              else chunks.push(chunk);
            });
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
      }),
  );
}

/** Seconds or an HTTP date, as Retry-After carries them; absent: a second. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
  if (!value) return 1000;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * GETs a source's answer the way every import does: the address policy checked and pinned on
 * each request, a 429 waited out for its Retry-After, a 5xx or a dropped connection retried with
 * exponential backoff, anything else non-2xx a SourceError naming the status and path only.
 */
export async function getBytes(
  url: URL,
  headers: Record<string, string>,
  opts: SourceHttpOptions,
): Promise<Buffer> {
  const maxRetries = opts.maxRetries ?? 5;
  const base = opts.retryBaseMs ?? 500;
  for (let attempt = 0; ; attempt += 1) {
    let answer: Answer;
    try {
      answer = await getOnce(url, headers, opts);
    } catch (err) {
      if (err instanceof SourceError || attempt >= maxRetries) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new SourceError(`${url.pathname}: ${reason}`);
      }
      await sleep(base * 2 ** attempt);
      continue;
    }
    const { status } = answer;
    if (status >= 200 && status < 300) return answer.body;
    const retryable = status === 429 || status >= 500;
    if (!retryable || attempt >= maxRetries) {
      const hint = status === 401 || status === 403 ? ' (is the key right?)' : '';
      throw new SourceError(`${url.pathname} answered HTTP ${status}${hint}`);
    }
    const header = answer.headers['retry-after'];
    const wait =
      status === 429
        ? Math.min(
            retryAfterMs(Array.isArray(header) ? header[0] : header),
            opts.maxWaitMs ?? 120_000,
          )
        : base * 2 ** attempt;
    await sleep(wait);
  }
}

/** A source's JSON, fetched as `getBytes` fetches. */
export async function getJson(
  url: URL,
  headers: Record<string, string>,
  opts: SourceHttpOptions,
): Promise<unknown> {
  const body = await getBytes(url, headers, opts);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new SourceError(`${url.pathname} answered something that is not JSON`);
  }
}

/**
 * A GET whose body is read as a stream (a linkqr export), under the same policy; a 429 or 5xx
 * before the body starts is retried as `getJson` does.
 */
export async function getStream(
  url: URL,
  headers: Record<string, string>,
  opts: SourceHttpOptions,
): Promise<http.IncomingMessage> {
  const maxRetries = opts.maxRetries ?? 5;
  const base = opts.retryBaseMs ?? 500;
  for (let attempt = 0; ; attempt += 1) {
    const addresses = await resolveWebhookTarget(url, opts.policy);
    const transport = url.protocol === 'https:' ? https : http;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      transport
        .get(url, { lookup: pinnedLookup(addresses), headers: { ...headers } }, resolve)
        .on('error', reject);
    });
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    res.resume();
    if (!(status === 429 || status >= 500) || attempt >= maxRetries) {
      const hint = status === 401 || status === 403 ? ' (is the key right?)' : '';
      throw new SourceError(`${url.pathname} answered HTTP ${status}${hint}`);
    }
    const header = res.headers['retry-after'];
    await sleep(
      status === 429
        ? Math.min(
            retryAfterMs(Array.isArray(header) ? header[0] : header),
            opts.maxWaitMs ?? 120_000,
          )
        : base * 2 ** attempt,
    );
  }
}
