import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { domainCacheFor } from '../domains/domain-cache';
import { isBrandableHost } from '../domains/domain-name';
import { REQUEST_ID } from '../shared/http/request-log';
import { linkCacheFor, linkCacheKey } from './link-cache';
import { DEFAULT_DOMAIN_ID } from './link.model';
import { ALIAS_SHAPE } from './redirect';

/**
 * `GET /:alias` of a link that is cached and marked `direct`, answered before the middleware chain
 * (request log, helmet, routers) with the security headers helmet would have set. Everything else
 * (a cache miss, a password, an expired link, a link with pages, pixels or targeting, a query
 * string, HEAD, an unknown host) goes on to the normal routes, which also fill the cache.
 * Fast-path redirects are counted as clicks but not written to the access log.
 */
export function redirectFastPath(
  deps: AppDeps,
  securityHeaders: readonly string[],
): RequestHandler {
  const links = linkCacheFor(deps);
  const domains = domainCacheFor(deps);
  const serviceHost = new URL(deps.config.publicUrl).hostname.toLowerCase();
  const fixed = [...securityHeaders, 'Cache-Control', 'private, no-store', 'Content-Length', '0'];

  /** The domain id the alias is looked up on, or undefined when only the normal routes know. */
  function domainIdOf(req: Request): number | undefined {
    const hostname = req.hostname;
    if (!hostname || hostname === serviceHost) return DEFAULT_DOMAIN_ID;
    const host = hostname.toLowerCase();
    if (host === serviceHost || !isBrandableHost(host)) return DEFAULT_DOMAIN_ID;
    const domain = domains.peek(host);
    if (domain === undefined) return undefined;
    return domain?.id ?? DEFAULT_DOMAIN_ID;
  }

  return (req, res, next) => {
    if (req.method !== 'GET') return next();
    const alias = req.url.slice(1);
    if (req.url.charCodeAt(0) !== 47 || !ALIAS_SHAPE.test(alias)) return next();
    const domainId = domainIdOf(req);
    if (domainId === undefined) return next();
    const target = links.peek(linkCacheKey(domainId, alias));
    if (!target?.direct) return next();
    if (target.expiresAt !== null && Date.now() >= target.expiresAt) return next();
    links.lookups.hit.inc();
    // The request metrics (mounted before this) count it as a redirect of the alias route.
    res.locals.routeTemplate = '/:alias';
    deps.visits.record({ kind: 'link', id: target.id }, req);
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.writeHead(302, [...fixed, 'Location', target.url, 'X-Request-Id', id]);
    res.end();
  };
}
