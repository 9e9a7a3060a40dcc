import type { Express, Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { domainCacheFor } from '../domains/domain-cache';
import { isBrandableHost } from '../domains/domain-name';
import { expressView, type Visitor } from '../shared/http/express-view';
import type { PublicRateLimit } from '../shared/http/public-rate-limit';
import { batchedAccessLog, requestIdOf } from '../shared/http/request-log';
import type { ApiMetrics } from '../shared/metrics/api-metrics';
import { linkCacheFor, linkCacheKey } from '../links/link-cache';
import { DEFAULT_DOMAIN_ID } from '../links/link.model';
import { ALIAS_SHAPE, destinationOf, isAppUrl } from './redirect';
import { factsOf } from './rules/visitor-facts';

/**
 * Answers the request and returns true, or returns false having touched nothing. With a public
 * rate limit, a click past its address's cap is handed to `fallback` (the normal routes, which
 * answer the 429 without counting it again), and true is returned.
 */
export type FastPath = (req: Request, res: Response, fallback: () => void) => boolean;

/**
 * `GET /:alias` of a link that is cached and marked `direct`, answered before Express routes the
 * request (no router, request log, helmet) with the security headers helmet would have set.
 * A link with rules is answered here too, its destination picked by its compiled rules (the
 * query string is theirs to read). Everything else (a cache miss, a password, an expired link, a
 * link with pages or pixels, a query string on a link without rules, HEAD, an unknown host) goes
 * on to the normal routes, which also fill
 * the cache. Fast-path redirects are counted as requests and clicks, and written to the access
 * log in batches (`batchedAccessLog`). The client address and host are Express's own (`trust proxy` included),
 * read through an `expressView`: the request itself is left as Node made it.
 */
export function redirectFastPath(
  app: Express,
  deps: AppDeps,
  securityHeaders: readonly string[],
  metrics: Pick<ApiMetrics, 'counter'>,
  limit?: Pick<PublicRateLimit, 'count' | 'countInProcess'>,
): FastPath {
  const links = linkCacheFor(deps);
  const domains = domainCacheFor(deps);
  const countryHeader = deps.config.countryHeader;
  const serviceHost = new URL(deps.config.publicUrl).hostname.toLowerCase();
  /** The 302's headers: the fixed ones, then the Location and X-Request-Id of the answer in hand. */
  const headers = [
    ...securityHeaders,
    'Cache-Control',
    'private, no-store',
    'Content-Length',
    '0',
    'Location',
    '',
    'X-Request-Id',
    '',
  ];
  const locationAt = headers.length - 3;
  const requestIdAt = headers.length - 1;
  const counted = metrics.counter('GET', '/:alias', 302);
  const accessLog = batchedAccessLog(deps.logger);
  const viewOf = expressView(app);

  /** The domain id the alias is looked up on, or undefined when only the normal routes know. */
  function domainIdOf(hostname: string | undefined): number | undefined {
    if (!hostname || hostname === serviceHost) return DEFAULT_DOMAIN_ID;
    const host = hostname.toLowerCase();
    if (host === serviceHost || !isBrandableHost(host)) return DEFAULT_DOMAIN_ID;
    const domain = domains.peek(host);
    // An unverified domain's page comes from the normal routes.
    if (domain === undefined || (domain && domain.status !== 'verified')) return undefined;
    return domain?.id ?? DEFAULT_DOMAIN_ID;
  }

  function answer(
    visitor: Visitor,
    res: Response,
    id: number,
    location: string,
    path: string,
    started: bigint,
  ) {
    links.lookups.hit.inc();
    deps.visits.record({ kind: 'link', id }, visitor);
    const requestId = requestIdOf(visitor);
    // Node reads the array into the response's header block before writeHead returns.
    headers[locationAt] = location;
    headers[requestIdAt] = requestId;
    res.writeHead(302, headers);
    res.end();
    const nanoseconds = Number(process.hrtime.bigint() - started);
    counted(nanoseconds / 1e9);
    accessLog({
      reqId: requestId,
      method: 'GET',
      path,
      status: 302,
      ms: Math.round(nanoseconds / 1e4) / 100,
    });
  }

  return (req, res, fallback) => {
    const started = process.hrtime.bigint();
    if (req.method !== 'GET' || req.url.charCodeAt(0) !== 47) return false;
    const mark = req.url.indexOf('?');
    const path = mark === -1 ? req.url : req.url.slice(0, mark);
    const alias = path.slice(1);
    if (!ALIAS_SHAPE.test(alias)) return false;
    const view = viewOf(req);
    const domainId = domainIdOf(view.hostname);
    if (domainId === undefined) return false;
    const target = links.peek(linkCacheKey(domainId, alias));
    if (!target?.direct || (mark !== -1 && !target.rules)) return false;
    const now = Date.now();
    if (target.expiresAt !== null && now >= target.expiresAt) return false;
    const visitor: Visitor = { ip: view.ip, headers: req.headers, url: req.url };
    const location = destinationOf(target, () => factsOf(visitor, countryHeader, now));
    // An app URL opens through the app page of the normal routes.
    if (location.charCodeAt(0) !== 104 && isAppUrl(location)) return false;
    if (!limit) {
      answer(visitor, res, target.id, location, path, started);
      return true;
    }
    // Counted before the 302 (issue 29, L3); mostly in the process, at once, Redis near the cap.
    const counted = limit.countInProcess(req, visitor);
    if (counted === undefined) {
      void limit.count(req, visitor).then((within) => {
        if (within) answer(visitor, res, target.id, location, path, started);
        else fallback();
      });
    } else if (counted) answer(visitor, res, target.id, location, path, started);
    else fallback();
    return true;
  };
}
