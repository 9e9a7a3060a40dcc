import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { presentPixel } from './pixels.presenter';
import {
  pixelCreateSchema,
  pixelUpdateSchema,
  type PixelCreate,
  type PixelUpdate,
} from './pixels.schemas';
import { createPixel, deletePixel, listPixels, updatePixel } from './pixels.service';

export function pixelsRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/pixels', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listPixels(currentUser(req).id, query);
    sendList(res, 'pixels', items.map(presentPixel), total, query);
  });

  router.post('/pixel/add', validate({ body: pixelCreateSchema }), async (req, res) => {
    const pixel = await createPixel(currentUser(req).id, req.body as PixelCreate);
    sendCreated(res, { id: pixel.id });
  });

  router.put(
    '/pixel/:id/update',
    validate({ params: idParams, body: pixelUpdateSchema }),
    async (req, res) => {
      await updatePixel(currentUser(req).id, Number(req.params.id), req.body as PixelUpdate, cache);
      sendMessage(res, 'Pixel has been successfully updated.');
    },
  );

  router.delete('/pixel/:id/delete', validate({ params: idParams }), async (req, res) => {
    await deletePixel(currentUser(req).id, Number(req.params.id), cache);
    sendMessage(res, 'Pixel has been successfully deleted.');
  });

  return router;
}
