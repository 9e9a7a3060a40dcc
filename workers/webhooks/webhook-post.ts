import http from 'node:http';
import https from 'node:https';
import type { ResolvedAddress } from '../../src/qr-codes/logo/logo-fetch';
import { pinnedLookup } from '../../src/qr-codes/logo/logo-fetch';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * POSTs the body to the URL, connecting only to the addresses already checked; answers the HTTP
 * status. Redirects are not followed (a 3xx is a failed delivery), the answer's body is discarded.
 */
export function postWebhook(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<number> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: 'POST',
        lookup: pinnedLookup(addresses),
        signal: AbortSignal.timeout(timeoutMs),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
