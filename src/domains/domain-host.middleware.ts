import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { sendPage } from '../shared/http/pages';
import { setBrandedDomain } from '../shared/http/public-context';
import { domainCacheFor } from './domain-cache';
import { isBrandableHost } from './domain-name';
import { findDomainByHost } from './domains.service';

/** What a visitor meets on a domain whose ownership is not (or no longer) proven. */
function sendUnverifiedDomain(res: Response, status: 'pending' | 'suspended'): void {
  const why =
    status === 'pending'
      ? "This domain's owner has not yet proven they hold it"
      : "This domain's ownership record was not found at its last check";
  res.setHeader('Cache-Control', 'no-store');
  sendPage(
    res,
    503,
    'Links paused on this domain',
    `<h1>Links paused on this domain</h1><p>${why}, so its short links are not served here for now.</p><p>If this is your domain, open the dashboard's Branded domains page to see the DNS record it needs.</p>`,
  );
}

/**
 * First of the public routes: on a branded domain, records it for the routes after it and sends
 * the root to `redirectroot`. Requests on the service's own host (or on an IP address) pass
 * straight through without any lookup, since short-link redirects there are the hot path.
 */
export function domainHost(deps: AppDeps): RequestHandler {
  const { config } = deps;
  const serviceHost = new URL(config.publicUrl).hostname.toLowerCase();
  const domains = domainCacheFor(deps);

  async function serveBranded(host: string, req: Request, res: Response, next: NextFunction) {
    const domain = await domains.get(host, () => findDomainByHost(host));
    if (!domain) return next();
    // An unproven or suspended claim serves nothing on the host (issue 29, M6).
    if (domain.status !== 'verified') return sendUnverifiedDomain(res, domain.status);
    setBrandedDomain(res, domain);
    if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      return res.redirect(302, domain.redirectroot ?? config.publicUrl);
    }
    next();
  }

  return (req, res, next) => {
    const hostname = req.hostname;
    if (!hostname || hostname === serviceHost) return next();
    const host = hostname.toLowerCase();
    if (host === serviceHost || !isBrandableHost(host)) return next();
    serveBranded(host, req, res, next).catch(next);
  };
}
