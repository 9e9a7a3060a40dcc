import type { Request, RequestHandler } from 'express';
import { isBrandableHost } from '../../domains/domain-name';

const hostOf = (url: string) => new URL(url).hostname.toLowerCase();

/**
 * Where a request is addressed: Express's `req.hostname` (of the request or an `ExpressView`),
 * undefined when the request has no Host header.
 */
export type Addressed = { readonly hostname: string | undefined };

/**
 * Whether a request is addressed to the service itself rather than to a branded domain: its host
 * is PUBLIC_URL's (or APP_URL's), or one nobody can brand (an IP address, `localhost`), as when a
 * newcomer opens http://127.0.0.1:3000. The one place that decides it, for every route that
 * answers only there.
 */
export function ownHostCheck(publicUrl: string, appUrl?: string): (req: Addressed) => boolean {
  const hosts = new Set([hostOf(publicUrl), ...(appUrl ? [hostOf(appUrl)] : [])]);
  return (req) => {
    const host = (req.hostname ?? '').toLowerCase();
    return hosts.has(host) || host === '' || !isBrandableHost(host);
  };
}

/** Where each part of the service answers (issue 29, M2/M3). */
export interface ServiceHosts {
  /** `/api`, `/docs`, `/metrics`: the service's own hosts (see `ownHostCheck`). */
  isOwnHost(req: Addressed): boolean;
  /**
   * `/app`: APP_URL's host alone when it is set apart from PUBLIC_URL's, so no visitor page ever
   * shares the dashboard's origin; otherwise the own hosts.
   */
  isAppHost(req: Addressed): boolean;
  /** A request to the separate dashboard host, where no visitor route answers. */
  isDashboardOnly(req: Addressed): boolean;
  /** Whether the dashboard shares its origin with visitor pages (no separate APP_URL). */
  readonly sharedOrigin: boolean;
}

export function serviceHosts(config: { publicUrl: string; appUrl?: string }): ServiceHosts {
  const isOwnHost = ownHostCheck(config.publicUrl, config.appUrl);
  const appHost = config.appUrl ? hostOf(config.appUrl) : undefined;
  const separate = appHost !== undefined && appHost !== hostOf(config.publicUrl);
  const onAppHost = (req: Addressed) => (req.hostname ?? '').toLowerCase() === appHost;
  return {
    isOwnHost,
    isAppHost: separate ? onAppHost : isOwnHost,
    isDashboardOnly: separate ? onAppHost : () => false,
    sharedOrigin: !separate,
  };
}

/** Mounts `handler` only for requests `where` accepts; others go on as if it were not there. */
export function onlyWhere(
  where: (req: Request) => boolean,
  handler: RequestHandler,
): RequestHandler {
  const gated: RequestHandler = (req, res, next) => (where(req) ? handler(req, res, next) : next());
  // A router's routes stay visible through the gate to what walks the route table (the OpenAPI
  // document, the route coverage and body tests).
  const stack = (handler as { stack?: unknown }).stack;
  return stack === undefined ? gated : Object.assign(gated, { stack });
}
