import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { resetNote } from '../links/link-usage';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { presentSplash } from './splash.presenter';
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

export function splashRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/splash', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listSplashPages(currentUser(req).id, query);
    sendList(res, 'splash', items.map(presentSplash), total, query);
  });

  router.post('/splash/add', validate({ body: splashCreateSchema }), async (req, res) => {
    const page = await createSplashPage(currentUser(req).id, req.body as SplashCreate);
    sendCreated(res, { id: page.id });
  });

  router.put(
    '/splash/:id/update',
    validate({ params: idParams, body: splashUpdateSchema }),
    async (req, res) => {
      const id = Number(req.params.id);
      await updateSplashPage(currentUser(req).id, id, req.body as SplashUpdate, cache);
      sendMessage(res, 'Splash page has been successfully updated.');
    },
  );

  router.delete('/splash/:id/delete', validate({ params: idParams }), async (req, res) => {
    const reset = await deleteSplashPage(currentUser(req).id, Number(req.params.id), cache);
    sendMessage(res, `Splash page has been successfully deleted.${resetNote(reset)}`);
  });

  return router;
}
