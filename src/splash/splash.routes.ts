import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { PageQuery } from '../shared/http/pagination';
import { sendList } from '../shared/http/responses';
import { listEndpoint } from '../shared/http/common-endpoints';
import { validatedQuery } from '../shared/http/validate';
import { splashJson, presentSplash } from './splash.presenter';
import { listSplashPages } from './splash.service';

const api = {
  list: listEndpoint('Splash pages', 'List your custom splash pages', 'splash', splashJson),
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
