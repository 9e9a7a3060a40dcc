import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { resetNote } from '../links/link-usage';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import type { PageQuery } from '../shared/http/pagination';
import { ownedListsFor } from '../shared/db/owned-lists';
import { createdResponse, sendCreated, sendListPage, sendMessage } from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { presentSplash, splashJson } from './splash.presenter';
import {
  splashCreateSchema,
  splashUpdateSchema,
  type SplashCreate,
  type SplashUpdate,
} from './splash.schemas';
import {
  createSplashPage,
  deleteSplashPage,
  listSplashPages,
  updateSplashPage,
} from './splash.service';

const tag = 'Splash pages';

const api = {
  list: listEndpoint(tag, 'List your custom splash pages', 'splash', splashJson, 'splash'),
  add: endpoint({
    tag,
    scope: 'splash:write',
    summary: 'Add a custom splash page',
    body: splashCreateSchema,
    example: { name: 'Launch', title: 'New menu', link: 'https://example.com/menu', counter: 5 },
    responses: { 200: createdResponse({}, 'The new splash page') },
  }),
  update: updateEndpoint(tag, "Change a splash page's content", splashUpdateSchema, 'splash'),
  delete: deleteEndpoint(tag, 'Delete a splash page; links using it become direct links', 'splash'),
};

export function splashRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const lists = ownedListsFor(deps);
  const router = Router();

  router.get('/splash', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const page = await listSplashPages(currentUser(req).id, query, lists);
    sendListPage(res, 'splash', page, query, presentSplash);
  });

  router.post('/splash/add', api.add, async (req, res) => {
    const page = await createSplashPage(currentUser(req).id, req.body as SplashCreate);
    sendCreated(res, { id: page.id });
  });

  router.put('/splash/:id/update', api.update, async (req, res) => {
    const id = Number(req.params.id);
    await updateSplashPage(currentUser(req).id, id, req.body as SplashUpdate, cache);
    sendMessage(res, 'Splash page has been successfully updated.');
  });

  router.delete('/splash/:id/delete', api.delete, async (req, res) => {
    const reset = await deleteSplashPage(currentUser(req).id, Number(req.params.id), cache);
    sendMessage(res, `Splash page has been successfully deleted.${resetNote(reset)}`);
  });

  return router;
}
