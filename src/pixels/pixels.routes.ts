import { Router, type RequestHandler } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { ownedListsFor } from '../shared/db/owned-lists';
import { FIRST_PAGE, type PageQuery } from '../shared/http/pagination';
import { createdResponse, sendCreated, sendListPage, sendMessage } from '../shared/http/responses';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { firstPageIn, type ListRoute } from '../shared/http/hot-lists';
import { validatedQuery } from '../shared/http/validate';
import { pixelJson, presentPixel } from './pixels.presenter';
import {
  pixelCreateSchema,
  pixelUpdateSchema,
  type PixelCreate,
  type PixelUpdate,
} from './pixels.schemas';
import { createPixel, deletePixel, listPixels, peekPixels, updatePixel } from './pixels.service';

const tag = 'Pixels';

const api = {
  list: listEndpoint(tag, 'List your tracking pixels', 'pixels', pixelJson, 'pixels'),
  add: endpoint({
    tag,
    scope: 'pixels:write',
    summary: 'Add a tracking pixel',
    body: pixelCreateSchema,
    example: { type: 'gapixel', name: 'Main GA4', tag: 'G-ABC123XYZ' },
    responses: { 200: createdResponse({}, 'The new pixel') },
  }),
  update: updateEndpoint(tag, "Change a pixel's name or tag", pixelUpdateSchema, 'pixels'),
  delete: deleteEndpoint(tag, 'Delete a pixel', 'pixels'),
};

/** `GET /api/pixels`, mounted here and among the hot lists (see routes.ts). */
export function pixelsListRoute(deps: AppDeps): ListRoute {
  const lists = ownedListsFor(deps);
  const list: RequestHandler<Record<string, string>> = async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const page = await listPixels(currentUser(req).id, query, lists);
    sendListPage(res, 'pixels', page, query, presentPixel);
  };
  return {
    path: '/pixels',
    handlers: [api.list, list],
    firstPageInMemory: firstPageIn(lists, (userId) => peekPixels(userId, FIRST_PAGE, lists)),
  };
}

export function pixelsRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const router = Router();

  const list = pixelsListRoute(deps);
  router.get(list.path, ...list.handlers);

  router.post('/pixel/add', api.add, async (req, res) => {
    const pixel = await createPixel(currentUser(req).id, req.body as PixelCreate);
    sendCreated(res, { id: pixel.id });
  });

  router.put('/pixel/:id/update', api.update, async (req, res) => {
    await updatePixel(currentUser(req).id, Number(req.params.id), req.body as PixelUpdate, cache);
    sendMessage(res, 'Pixel has been successfully updated.');
  });

  router.delete('/pixel/:id/delete', api.delete, async (req, res) => {
    await deletePixel(currentUser(req).id, Number(req.params.id), cache);
    sendMessage(res, 'Pixel has been successfully deleted.');
  });

  return router;
}
