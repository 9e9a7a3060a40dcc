import type { Request } from 'express';
import { isBrandableHost } from '../../domains/domain-name';

/**
 * Whether a request is addressed to the service itself rather than to a branded domain: its host
 * is PUBLIC_URL's, or one nobody can brand (an IP address, `localhost`), as when a newcomer opens
 * http://127.0.0.1:3000. The one place that decides it, for every route that answers only there.
 */
export function ownHostCheck(publicUrl: string): (req: Request) => boolean {
  const serviceHost = new URL(publicUrl).hostname.toLowerCase();
  return (req) => {
    const host = (req.hostname ?? '').toLowerCase();
    return host === serviceHost || host === '' || !isBrandableHost(host);
  };
}
