import express, { type Express } from 'express';
import helmet from 'helmet';
import { requireAuth, resolveAuth } from './auth/auth.middleware';
import type { AppDeps } from './deps';
import { dashboardRouter } from './dashboard/dashboard';
import { healthRouter } from './health/health.routes';
import { apiRoutes, publicRoutes } from './routes';
import { errorHandler, routeNotFound } from './shared/errors/error-handler';
import { requireDependencies } from './shared/infra/dependencies';
import { requireJsonBody } from './shared/http/content-type';
import { requestLog } from './shared/http/request-log';
import { createRateLimiter } from './shared/http/rate-limit';
import { requireWellFormedStrings } from './shared/http/well-formed';

/** Builds the Express app; does no I/O of its own, so the server and the tests share it. */
export function createApp(deps: AppDeps): Express {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('json spaces', 0);

  app.use(requestLog(logger));
  app.use(helmet());
  app.use(healthRouter(deps));

  const api = express.Router();
  api.use(requireDependencies(deps.redis));
  api.use(resolveAuth);
  const rateLimit = createRateLimiter({
    redis: deps.redis,
    prefix: deps.keys.rateLimit(),
    windowMs: config.rateLimitWindowMs,
    planLimits: config.planRateLimits,
    defaultLimit: config.defaultRateLimit,
    anonymousLimit: config.anonymousRateLimit,
  });
  api.use(rateLimit);
  api.use(requireAuth);
  api.use(requireJsonBody);
  api.use(express.json({ limit: config.bodyLimit, strict: true }));
  api.use(requireWellFormedStrings);
  const routes = apiRoutes(deps);
  api.use(routes);
  api.use(routeNotFound);
  app.use('/api', api);
  app.use('/app', dashboardRouter(deps, { routes, rateLimit }));

  app.use(publicRoutes(deps));
  app.use(routeNotFound);
  app.use(errorHandler(logger));
  return app;
}
