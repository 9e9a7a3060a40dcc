import { Router } from 'express';
import { accountRouter } from './account/account.routes';
import type { AppDeps } from './deps';

/** Every resource's API router, mounted under /api behind auth and the rate limiter. */
export function apiRoutes(_deps: AppDeps): Router {
  const api = Router();
  api.use(accountRouter());
  return api;
}

/** Pages and redirects visitors reach without a key (short links, QR images, ...). */
export function publicRoutes(_deps: AppDeps): Router {
  const site = Router();
  return site;
}
