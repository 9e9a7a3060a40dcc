import type { Express, Request, Response } from 'express';
import fresh from 'fresh';
import { cachedCallers } from '../../auth/auth.middleware';
import { allows, type Scope } from '../../auth/scopes';
import type { AppDeps } from '../../deps';
import { ACCOUNT_HEADER } from '../../team/acting-account';
import { isMongoUp, isRedisUp } from '../infra/dependencies';
import type { ApiMetrics } from '../metrics/api-metrics';
import { corsHeadersFor } from './cors';
import { endpointDocOf } from './endpoint';
import type { ListRoute } from './hot-lists';
import type { InProcessLimit } from './rate-limit';
import { batchedAccessLog, requestIdOf } from './request-log';
import { expressView } from './express-view';
import type { Addressed } from './own-host';
import type { Middleware } from './security-headers';

export interface HotListFastPathOptions {
  app: Express;
  deps: AppDeps;
  routes: readonly ListRoute[];
  /** Helmet's headers, worked out once (`precomputeHeaders`). */
  securityHeaders: readonly string[];
  /** The /api CORS middleware, whose headers are worked out once per origin. */
  cors: Middleware;
  limit: InProcessLimit;
  metrics: Pick<ApiMetrics, 'count'>;
  isOwnHost(req: Addressed): boolean;
}

interface HotList {
  /** `/api/pixels`: the path, the metrics' route template and the access log's path. */
  path: string;
  scope: Scope;
  firstPage: NonNullable<ListRoute['firstPageInMemory']>;
}

/** Answers the request and returns true, or returns false having touched and counted nothing. */
export type HotListFastPath = (req: Request, res: Response) => boolean;

/** A request whose answer could depend on more than the list: a body, another account. */
const asksMoreThanTheList = (req: Request) =>
  req.headers[ACCOUNT_HEADER] !== undefined ||
  req.headers['content-length'] !== undefined ||
  req.headers['transfer-encoding'] !== undefined;

/**
 * `GET /api/<hot list>` without a query string, answered before Express routes the request when
 * everything the answer needs is in memory: the key's caller is cached and may act, its scopes
 * allow the route, the rate limiter can count the request in the process within the cap, and the
 * first page was sent before and is still cached. It writes what the whole stack would have
 * written (the same body and headers: security, CORS for the request's Origin, rate limit,
 * ETag, X-Request-Id; a 304 on a matching If-None-Match), counts the request in the metrics and
 * the caches' lookups, notes the key's use and writes it to the access log in batches.
 * Anything else (a query, Linkqr-Account, a cache miss, a key the limiter must ask Redis about,
 * a refusal of any kind, a dependency down) goes on to the normal routes untouched; they answer
 * it and fill the caches.
 */
export function hotListFastPath(options: HotListFastPathOptions): HotListFastPath {
  const { app, deps, limit, metrics, isOwnHost } = options;
  const callers = cachedCallers(deps);
  const corsHeaders = corsHeadersFor(options.cors);
  const accessLog = batchedAccessLog(deps.logger);
  const viewOf = expressView(app);
  const lists = new Map<string, HotList>();
  for (const route of options.routes) {
    const scope = route.handlers.map(endpointDocOf).find((doc) => doc?.scope)?.scope;
    if (!route.firstPageInMemory || !scope) continue;
    const path = `/api${route.path}`;
    lists.set(path, { path, scope, firstPage: route.firstPageInMemory });
  }

  return (req, res) => {
    const started = process.hrtime.bigint();
    if (req.method !== 'GET') return false;
    const list = lists.get(req.url);
    if (!list || asksMoreThanTheList(req)) return false;
    if (!isOwnHost(viewOf(req)) || !isRedisUp(deps.redis) || !isMongoUp()) return false;
    const now = new Date();
    const caller = callers.peek(req.headers.authorization, now);
    if (!caller || !allows(caller.key.scopes, list.scope) || !limit.fits(caller.user)) return false;
    const answer = list.firstPage(caller.user.id);
    if (!answer) return false;

    // Past this point the request is answered here: counted as the middleware would count it.
    callers.admit(caller, now);
    const requestId = requestIdOf(req);
    const headers = [
      'X-Request-Id',
      requestId,
      ...options.securityHeaders,
      ...corsHeaders(req.headers.origin),
      ...limit.count(caller.user),
    ];
    const { body, etag } = answer;
    if (etag !== undefined) headers.push('ETag', etag);
    const status = etag !== undefined && fresh(req.headers, { etag }) ? 304 : 200;
    if (status === 200) {
      headers.push('Content-Type', 'application/json; charset=utf-8');
      headers.push('Content-Length', String(body.length));
      res.writeHead(200, headers);
      res.end(body);
    } else {
      res.writeHead(304, headers);
      res.end();
    }
    const nanoseconds = Number(process.hrtime.bigint() - started);
    metrics.count('GET', list.path, status, nanoseconds / 1e9);
    accessLog({
      reqId: requestId,
      method: 'GET',
      path: list.path,
      status,
      ms: Math.round(nanoseconds / 1e4) / 100,
    });
    return true;
  };
}
