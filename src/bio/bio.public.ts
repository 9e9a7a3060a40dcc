import { Router } from 'express';
import { ALIAS_SHAPE } from '../links/redirect';
import { sendPage } from '../shared/http/pages';
import { sendPublicNotFound } from '../shared/http/public-context';
import { renderBioBody } from './bio.presenter';
import { findBioPage } from './bio.service';

/** `{PUBLIC_URL}/b/{alias}`. */
export function bioPublicRouter(): Router {
  const router = Router();
  router.get('/b/:alias', async (req, res) => {
    const bio = ALIAS_SHAPE.test(req.params.alias) ? await findBioPage(req.params.alias) : null;
    if (!bio) return sendPublicNotFound(res, req.path);
    sendPage(res, 200, bio.name, renderBioBody(bio));
  });
  return router;
}
