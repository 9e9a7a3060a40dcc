import { Router } from 'express';
import { accountRouter } from './account/account.routes';
import { auditRouter } from './audit/audit.routes';
import { bioPublicRouter } from './bio/bio.public';
import { bioRouter } from './bio/bio.routes';
import { campaignsPublicRouter } from './campaigns/campaigns.public';
import { campaignsRouter } from './campaigns/campaigns.routes';
import { channelsRouter } from './channels/channels.routes';
import type { AppDeps } from './deps';
import { domainHost } from './domains/domain-host.middleware';
import { domainsRouter } from './domains/domains.routes';
import { exportsRouter } from './exports/exports.routes';
import { firstRunRouter } from './first-run/first-run.routes';
import { keysRouter } from './keys/keys.routes';
import { createImportQueue } from './imports/imports.jobs';
import { importsRouter } from './imports/imports.routes';
import { linksBulkRouter } from './links/links-bulk.routes';
import { linksRouter } from './links/links.routes';
import { appLinksRouter } from './visitor/app-links.routes';
import { redirectRouter } from './visitor/redirect.routes';
import { overlaysPublicRouter } from './overlays/overlays.public';
import { overlaysRouter } from './overlays/overlays.routes';
import { pixelsListRoute, pixelsRouter } from './pixels/pixels.routes';
import { plansRouter } from './plans/plans.routes';
import { qrCodesRouter } from './qr-codes/qr-codes.routes';
import { qrBulkRouter } from './qr-codes/qr-bulk.routes';
import { qrPublicRouter } from './qr-codes/qr-public.routes';
import type { ListRoute } from './shared/http/hot-lists';
import { publicNotFound } from './shared/http/public-context';
import type { PublicRateLimit } from './shared/http/public-rate-limit';
import { splashRouter } from './splash/splash.routes';
import { statsRouter } from './stats/stats.routes';
import { teamRouter } from './team/team.routes';
import { twoFactorRouter } from './two-factor/two-factor.routes';
import { webhooksRouter } from './webhooks/webhooks.routes';
import { usersRouter } from './users/users.routes';

/** Every resource's API router, mounted under /api behind auth and the rate limiter. */
export function apiRoutes(deps: AppDeps): Router {
  const api = Router();
  api.use(accountRouter(deps), twoFactorRouter(deps));
  api.use(domainsRouter(deps), pixelsRouter(deps), overlaysRouter(deps), splashRouter(deps));
  api.use(
    linksBulkRouter(deps),
    linksRouter(deps),
    campaignsRouter(deps),
    channelsRouter(deps),
    bioRouter(deps),
  );
  api.use(qrBulkRouter(deps), qrCodesRouter(deps));
  api.use(statsRouter(deps), exportsRouter(deps), webhooksRouter(deps));
  api.use(usersRouter(deps), plansRouter(deps), keysRouter(deps), auditRouter());
  api.use(teamRouter(deps));
  api.use(
    importsRouter(deps, deps.importQueue ?? createImportQueue({ ...deps, connection: deps.redis })),
  );
  return api;
}

/** The API lists answered ahead of the resource routers' walk (also mounted by `apiRoutes`). */
export function hotListRoutes(deps: AppDeps): ListRoute[] {
  return [pixelsListRoute(deps)];
}

/** Pages and redirects visitors reach without a key (short links, QR images, ...). */
export function publicRoutes(deps: AppDeps, limit?: PublicRateLimit): Router {
  const site = Router();
  // Every visitor route counts against its address's cap, the 404 page included (L3).
  if (limit) site.use(limit.middleware);
  // Order matters: branded-domain host resolution first, fixed prefixes next, the
  // catch-all `/:alias` of short links last, then the visitor 404.
  site.use(domainHost(deps));
  site.use(appLinksRouter());
  site.use(firstRunRouter(deps));
  site.use(qrPublicRouter(deps));
  site.use(campaignsPublicRouter(deps), bioPublicRouter(), overlaysPublicRouter(deps));
  site.use(redirectRouter(deps));
  site.use(publicNotFound);
  return site;
}
