import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { resetNote } from '../links/link-usage';
import { ownedListsFor } from '../shared/db/owned-lists';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { idParams } from '../shared/http/id-params';
import { keysetPageQuerySchema, type PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  listResponse,
  sendCreated,
  sendList,
  sendListPage,
  sendMessage,
} from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { listContactResponses } from './overlay-responses.service';
import {
  overlayJson,
  overlayResponseJson,
  presentOverlay,
  presentOverlayResponse,
} from './overlays.presenter';
import {
  overlayCreateSchema,
  overlayUpdateSchema,
  type OverlayCreate,
  type OverlayUpdate,
} from './overlays.schemas';
import { createOverlay, deleteOverlay, listOverlays, updateOverlay } from './overlays.service';

const tag = 'CTA overlays';

const api = {
  list: listEndpoint(tag, 'List your CTA overlays', 'cta', overlayJson, 'overlays'),
  add: endpoint({
    tag,
    scope: 'overlays:write',
    summary: 'Add a CTA overlay',
    body: overlayCreateSchema,
    example: { name: 'Spring sale', type: 'message', message: '20% off', button: 'Shop' },
    responses: { 200: createdResponse({}, 'The new overlay') },
  }),
  update: updateEndpoint(tag, "Change an overlay's settings", overlayUpdateSchema, 'overlays'),
  delete: deleteEndpoint(tag, 'Delete an overlay; links using it become direct links', 'overlays'),
  responses: endpoint({
    tag,
    scope: 'overlays:read',
    summary: "List the messages sent through a contact overlay's form",
    params: idParams,
    query: keysetPageQuerySchema,
    responses: { 200: listResponse('responses', overlayResponseJson, 'A page, newest first') },
  }),
};

export function overlaysRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const lists = ownedListsFor(deps);
  const router = Router();

  router.get('/overlay', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const page = await listOverlays(currentUser(req).id, query, lists);
    sendListPage(res, 'cta', page, query, presentOverlay);
  });

  router.post('/overlay/add', api.add, async (req, res) => {
    const overlay = await createOverlay(currentUser(req).id, req.body as OverlayCreate);
    sendCreated(res, { id: overlay.id });
  });

  router.put('/overlay/:id/update', api.update, async (req, res) => {
    const id = Number(req.params.id);
    await updateOverlay(currentUser(req).id, id, req.body as OverlayUpdate, cache);
    sendMessage(res, 'Overlay has been successfully updated.');
  });

  router.delete('/overlay/:id/delete', api.delete, async (req, res) => {
    const reset = await deleteOverlay(currentUser(req).id, Number(req.params.id), cache);
    sendMessage(res, `Overlay has been successfully deleted.${resetNote(reset)}`);
  });

  router.get('/overlay/:id/responses', api.responses, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listContactResponses(
      currentUser(req).id,
      Number(req.params.id),
      query,
    );
    sendList(res, 'responses', items.map(presentOverlayResponse), total, query);
  });

  return router;
}
