import express, { type Express, type Request } from 'express';
import helmet from 'helmet';
import { auditWrites } from './audit/audit.middleware';
import { requireAuth, resolveAuth } from './auth/auth.middleware';
import type { AppDeps } from './deps';
import { dashboardRouter } from './dashboard/dashboard';
import { healthRouter } from './health/health.routes';
import { redirectFastPath } from './visitor/redirect.fast-path';
import { qrLookupCacheFor } from './qr-codes/qr-lookup-cache';
import { generateOpenApi, type OpenApiDocument } from './openapi/openapi.document';
import { docsRouter, openApiRouter } from './openapi/openapi.routes';
import { apiRoutes, hotListRoutes, publicRoutes } from './routes';
import { actInAccount } from './team/acting-account';
import { errorHandler, routeNotFound } from './shared/errors/error-handler';
import { requireDependencies } from './shared/infra/dependencies';
import { requireJsonBody } from './shared/http/content-type';
import { jsonBody } from './shared/http/json-body';
import { apiCors } from './shared/http/cors';
import { hotLists } from './shared/http/hot-lists';
import { hotListFastPath } from './shared/http/hot-lists.fast-path';
import { expressView } from './shared/http/express-view';
import { requestLog } from './shared/http/request-log';
import { createRateLimiter } from './shared/http/rate-limit';
import { createPublicRateLimit } from './shared/http/public-rate-limit';
import { precomputeHeaders, setHeaders } from './shared/http/security-headers';
import { onlyWhere, serviceHosts } from './shared/http/own-host';
import { createApiMetrics } from './shared/metrics/api-metrics';
import { metricsRouter } from './shared/metrics/metrics.routes';
import { requireWellFormedStrings } from './shared/http/well-formed';

/** Builds the Express app; does no I/O of its own, so the server and the tests share it. */
export function createApp(deps: AppDeps): Express {
  const { config, logger } = deps;
  const metrics = createApiMetrics({
    ...deps,
    waitingForRenders: () => qrLookupCacheFor(deps).watchCount,
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('json spaces', 0);

  const security = helmet();
  const publicLimit = createPublicRateLimit({
    redis: deps.redis,
    prefix: deps.keys.publicRateLimit(),
    logger,
    limit: config.publicRateLimit,
    windowMs: config.publicRateLimitWindowMs,
  });
  const securityHeaders = precomputeHeaders(security);
  const answerCachedRedirect = redirectFastPath(app, deps, securityHeaders, metrics, publicLimit);
  const route = app.handle.bind(app);
  const hosts = serviceHosts(config);
  const viewOf = expressView(app);
  const dashboardOnly = (req: Request) => !hosts.sharedOrigin && hosts.isDashboardOnly(viewOf(req));
  const rateLimit = createRateLimiter({
    redis: deps.redis,
    prefix: deps.keys.rateLimit(),
    windowMs: config.rateLimitWindowMs,
    planLimits: config.planRateLimits,
    defaultLimit: config.defaultRateLimit,
    anonymousLimit: config.anonymousRateLimit,
  });
  const cors = apiCors(config.corsOrigins);
  const hotRoutes = hotListRoutes(deps);
  const answerHotList = hotListFastPath({
    app,
    deps,
    routes: hotRoutes,
    securityHeaders,
    cors,
    limit: rateLimit.inProcess,
    metrics,
    isOwnHost: hosts.isOwnHost,
  });
  // A click on a cached direct link, and a hot list in memory, are answered before Express
  // routes the request at all.
  app.handle = (req, res, next) => {
    if (answerHotList(req, res)) return;
    const fallback = () => route(req, res, next);
    if (dashboardOnly(req) || !answerCachedRedirect(req, res, fallback)) fallback();
  };
  app.use(metrics.observe);
  app.use(requestLog(logger));
  // What every /api route passes after CORS, in this order.
  const apiGuards = [
    requireDependencies(deps.redis),
    // The key lookup asks the limiter first: an address past its cap costs MongoDB nothing (L3).
    resolveAuth(deps, rateLimit),
    actInAccount(deps),
    rateLimit,
    requireAuth,
    auditWrites(deps),
    requireJsonBody,
    jsonBody(config.bodyLimit),
    requireWellFormedStrings,
  ];
  // Ahead of helmet, which they replace by the headers it sets, worked out once.
  const hot = hotLists(hotRoutes, [setHeaders(securityHeaders), cors, ...apiGuards]);
  app.use('/api', onlyWhere(hosts.isOwnHost, hot));
  app.use(security);
  app.use(healthRouter(deps));
  // The service's own surfaces answer on its own hosts only, never on a branded domain (M2).
  app.use(onlyWhere(hosts.isOwnHost, metricsRouter(metrics, config.metricsToken)));
  app.use(onlyWhere(hosts.isOwnHost, docsRouter()));

  let document: OpenApiDocument | undefined;
  const openapi = () => (document ??= generateOpenApi(app, config.publicUrl).document);
  const api = express.Router();
  // Preflights carry no key: CORS answers them before authentication and the rate limiter;
  // neither they nor the document need MongoDB or Redis.
  api.use(cors);
  api.use(openApiRouter(openapi));
  api.use(...apiGuards);
  const routes = apiRoutes(deps);
  api.use(routes);
  api.use(routeNotFound);
  app.use('/api', onlyWhere(hosts.isOwnHost, api));
  app.use('/app', onlyWhere(hosts.isAppHost, dashboardRouter(deps, { routes, rateLimit, hosts })));

  // The dashboard's own host serves no visitor page: they never share its origin (M3).
  app.use(onlyWhere((req) => !hosts.isDashboardOnly(req), publicRoutes(deps, publicLimit)));
  app.use(routeNotFound);
  app.use(errorHandler(logger));
  // Generated at start-up, once the routes are in place, from what they validate and answer.
  openapi();
  return app;
}
