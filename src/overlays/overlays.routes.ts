import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendList } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { presentOverlay } from './overlays.presenter';
import { listOverlays } from './overlays.service';

export function overlaysRouter(): Router {
  const router = Router();

  router.get('/overlay', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listOverlays(currentUser(req).id, query);
    sendList(res, 'cta', items.map(presentOverlay), total, query);
  });

  return router;
}
