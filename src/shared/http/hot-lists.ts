import { Router, type RequestHandler } from 'express';
import type { OwnedLists } from '../db/owned-lists';
import { sentPageAnswer, type PageAnswer } from './responses';

/**
 * A `GET` list route declared once: its resource's router mounts it as usual (and the OpenAPI
 * document describes it from there), and `hotLists` mounts the very same handlers again ahead of
 * the other routers.
 */
export interface ListRoute {
  /** Express path under /api, e.g. `/pixels`. */
  path: string;
  /** The route's own handlers: its `endpoint` (scope, query) and the handler. */
  handlers: RequestHandler<Record<string, string>>[];
  /**
   * What the handlers would send for the user's first page (no query), when they have sent it
   * before and it is still cached; counts the cache hit the handlers would count. Undefined when
   * only the handlers can answer. See hot-lists.fast-path.ts.
   */
  firstPageInMemory?(userId: number): PageAnswer | undefined;
}

/**
 * `firstPageInMemory` for a list cached in `lists`, `peek` finding a user's first page there
 * (as `peekOwnedPage` does).
 */
export function firstPageIn(
  lists: OwnedLists,
  peek: (userId: number) => object | undefined,
): (userId: number) => PageAnswer | undefined {
  return (userId) => {
    const page = peek(userId);
    const answer = page && sentPageAnswer(page);
    // The hit `listOwnedCached` counts when the handler reads the page.
    if (answer) lists.lookups.hit.inc();
    return answer;
  };
}

/**
 * The lists clients poll most, answered without walking every resource's router first (a list
 * under /api met some sixty layers before its own; the walk was a tenth of its CPU), when the
 * fast path (hot-lists.fast-path.ts) could not answer from memory before Express. `guards`
 * are the /api middleware in the order the full stack runs them (CORS, authentication, the
 * account switch, the rate limiter...), so a hot list is refused, limited, logged and counted
 * exactly like any other route; a request that is not one of these lists passes on untouched.
 *
 * The router is handed on behind a plain function: its routes already appear once in the route
 * table through their resources' routers, and a second copy would be listed twice in the
 * OpenAPI document.
 */
export function hotLists(routes: readonly ListRoute[], guards: RequestHandler[]): RequestHandler {
  const router = Router();
  for (const route of routes) router.get(route.path, ...guards, ...route.handlers);
  return (req, res, next) => router(req, res, next);
}
