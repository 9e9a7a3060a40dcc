import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendList } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { presentSplash } from './splash.presenter';
import { listSplashPages } from './splash.service';

export function splashRouter(): Router {
  const router = Router();

  router.get('/splash', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listSplashPages(currentUser(req).id, query);
    sendList(res, 'splash', items.map(presentSplash), total, query);
  });

  return router;
}
