import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { listResponse, sendList } from '../shared/http/responses';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { overlayJson, presentOverlay } from './overlays.presenter';
import { listOverlays } from './overlays.service';

const api = {
  list: endpoint({
    tag: 'CTA overlays',
    summary: 'List your CTA overlays',
    query: pageQuerySchema,
    responses: { 200: listResponse('cta', overlayJson, 'A page of cta overlays') },
  }),
};

export function overlaysRouter(): Router {
  const router = Router();

  router.get('/overlay', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listOverlays(currentUser(req).id, query);
    sendList(res, 'cta', items.map(presentOverlay), total, query);
  });

  return router;
}
