import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { PageQuery } from '../shared/http/pagination';
import { sendList } from '../shared/http/responses';
import { listEndpoint } from '../shared/http/common-endpoints';
import { validatedQuery } from '../shared/http/validate';
import { overlayJson, presentOverlay } from './overlays.presenter';
import { listOverlays } from './overlays.service';

const api = {
  list: listEndpoint('CTA overlays', 'List your CTA overlays', 'cta', overlayJson),
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
