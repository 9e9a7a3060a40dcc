import { Router } from 'express';
import { ALIAS_SHAPE } from '../visitor/redirect';
import { endpoint } from '../shared/http/endpoint';
import { notFoundResponses, VISITOR_ERRORS, pageResponse, sendPage } from '../shared/http/pages';
import { sendPublicNotFound } from '../shared/http/public-context';
import { renderBioBody } from './bio.presenter';
import { findBioPage } from './bio.service';

const page = endpoint({
  tag: 'Visitors',
  summary: 'A bio page',
  responses: { 200: pageResponse('The page'), ...notFoundResponses },
  errors: VISITOR_ERRORS,
});

/** `{PUBLIC_URL}/b/{alias}`. */
export function bioPublicRouter(): Router {
  const router = Router();
  router.get('/b/:alias', page, async (req, res) => {
    const bio = ALIAS_SHAPE.test(req.params.alias) ? await findBioPage(req.params.alias) : null;
    if (!bio) return sendPublicNotFound(res, req.path);
    sendPage(res, 200, bio.name, renderBioBody(bio));
  });
  return router;
}
