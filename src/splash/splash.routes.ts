import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { listResponse, sendList } from '../shared/http/responses';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { splashJson, presentSplash } from './splash.presenter';
import { listSplashPages } from './splash.service';

const api = {
  list: endpoint({
    tag: 'Splash pages',
    summary: 'List your custom splash pages',
    query: pageQuerySchema,
    responses: { 200: listResponse('splash', splashJson, 'A page of splash pages') },
  }),
};

export function splashRouter(): Router {
  const router = Router();

  router.get('/splash', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listSplashPages(currentUser(req).id, query);
    sendList(res, 'splash', items.map(presentSplash), total, query);
  });

  return router;
}
