import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { resetNote } from '../links/link-usage';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { listContactResponses } from './overlay-responses.service';
import { presentOverlay, presentOverlayResponse } from './overlays.presenter';
import {
  overlayCreateSchema,
  overlayUpdateSchema,
  type OverlayCreate,
  type OverlayUpdate,
} from './overlays.schemas';
import { createOverlay, deleteOverlay, listOverlays, updateOverlay } from './overlays.service';

export function overlaysRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/overlay', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listOverlays(currentUser(req).id, query);
    sendList(res, 'cta', items.map(presentOverlay), total, query);
  });

  router.post('/overlay/add', validate({ body: overlayCreateSchema }), async (req, res) => {
    const overlay = await createOverlay(currentUser(req).id, req.body as OverlayCreate);
    sendCreated(res, { id: overlay.id });
  });

  router.put(
    '/overlay/:id/update',
    validate({ params: idParams, body: overlayUpdateSchema }),
    async (req, res) => {
      const id = Number(req.params.id);
      await updateOverlay(currentUser(req).id, id, req.body as OverlayUpdate, cache);
      sendMessage(res, 'Overlay has been successfully updated.');
    },
  );

  router.delete('/overlay/:id/delete', validate({ params: idParams }), async (req, res) => {
    const reset = await deleteOverlay(currentUser(req).id, Number(req.params.id), cache);
    sendMessage(res, `Overlay has been successfully deleted.${resetNote(reset)}`);
  });

  router.get(
    '/overlay/:id/responses',
    validate({ params: idParams, query: pageQuerySchema }),
    async (req, res) => {
      const query = validatedQuery<PageQuery>(res);
      const { items, total } = await listContactResponses(
        currentUser(req).id,
        Number(req.params.id),
        query,
      );
      sendList(res, 'responses', items.map(presentOverlayResponse), total, query);
    },
  );

  return router;
}
