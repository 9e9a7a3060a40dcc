import { auditWrites } from '../audit/audit.middleware';
import { actInAccount } from '../team/acting-account';
import path from 'node:path';
import { existsSync } from 'node:fs';
import express, { Router, type Request, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { AppDeps } from '../deps';
import { notFound } from '../shared/errors/app-error';
import { errorHandler, routeNotFound } from '../shared/errors/error-handler';
import { requireJsonBody } from '../shared/http/content-type';
import { jsonBody } from '../shared/http/json-body';
import { requireWellFormedStrings } from '../shared/http/well-formed';
import { requireDependencies } from '../shared/infra/dependencies';
import { requireCsrf, statelessCsrf } from './csrf';
import { dashboardApi, logoUpload } from './dashboard-api';
import { dashboardPages, pageErrors } from './dashboard.routes';
import { routeTable } from './route-table';
import { csrfCookie, dashboardSecret, sessionMiddleware } from './session';
import { sameOriginCalls } from './fetch-metadata';
import type { ServiceHosts } from '../shared/http/own-host';
import { loadSessionUser, requireSessionUser } from './session-user';

/** web/app beside package.json, whether running from src/ (tsx) or dist/src/ (node). */
export function assetsDir(from = __dirname): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'web', 'app');
    if (existsSync(path.join(candidate, 'app.js'))) return candidate;
  }
  throw new Error(`web/app not found above ${from}`);
}

/**
 * The web dashboard under /app. Its JSON calls go to /app/api, which mounts the very routers of
 * /api behind the session (instead of an API key), CSRF and the same per-user rate limit, so a
 * session can do exactly what the user's key can and every error is the API's own.
 */
export interface ApiParts {
  /** The routers of /api, mounted here too. */
  routes: Router;
  /** The API's per-user limiter: a session and its user's key share one count. */
  rateLimit: RequestHandler;
  hosts: ServiceHosts;
}

/** Dashboard POSTs that change no record: signing in and out, switching account, a form's check, a QR preview. */
const NOT_WRITES = /^\/(signin|signout|switch|api\/dashboard\/check|api\/dashboard\/qr-preview)$/;

export function dashboardRouter(deps: AppDeps, parts: ApiParts): Router {
  const { config } = deps;
  const router = Router();
  // Everything is served from here, so nothing else is allowed; over plain http (a LAN address,
  // say) helmet's upgrade-insecure-requests would send the browser to https for every asset.
  router.use(
    helmet.contentSecurityPolicy({
      useDefaults: true,
      directives: {
        'default-src': ["'self'"],
        'style-src': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'upgrade-insecure-requests': config.publicUrl.startsWith('https:') ? [] : null,
      },
    }),
  );
  router.use(
    '/assets',
    express.static(assetsDir(), { index: false, maxAge: config.env === 'production' ? '1h' : 0 }),
    (req: Request) => {
      throw notFound(`No asset at /app/assets${req.path}`);
    },
  );
  // The dashboard's own fetches carry their page as the referrer (see sameOriginCalls).
  router.use(helmet.referrerPolicy({ policy: 'same-origin' }));
  const secret = dashboardSecret(deps);
  router.use(sessionMiddleware(deps, secret));
  router.use(statelessCsrf(secret, csrfCookie(config), config.dashboard.sessionTtlSeconds * 1000));
  router.use(loadSessionUser(config.dashboard.sessionMaxAgeSeconds));
  router.use(auditWrites(deps, NOT_WRITES));

  const api = Router();
  if (parts.hosts.sharedOrigin) api.use(sameOriginCalls);
  api.use(requireDependencies(deps.redis));
  api.use(requireSessionUser);
  api.use(actInAccount(deps));
  api.use(requireCsrf);
  api.use(parts.rateLimit);
  api.use(logoUpload(deps));
  api.use(requireJsonBody);
  api.use(jsonBody(config.bodyLimit));
  api.use(requireWellFormedStrings);
  api.use(dashboardApi(deps));
  api.use(parts.routes);
  api.use(routeNotFound);
  api.use(errorHandler(deps.logger));
  router.use('/api', api);

  router.use(dashboardPages(deps, routeTable(parts.routes)));
  // Failures before the pages' router (the session store, say) get a page too, not JSON.
  router.use(pageErrors(deps));
  return router;
}
