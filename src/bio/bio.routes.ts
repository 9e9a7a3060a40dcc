import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { bioPageUrl } from './bio-url';
import { presentBio } from './bio.presenter';
import { bioCreateSchema, type BioCreate } from './bio.schemas';
import { createBioPage, deleteBioPage, listBioPages } from './bio.service';

export function bioRouter({ config }: AppDeps): Router {
  const router = Router();

  router.get('/bio', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listBioPages(currentUser(req).id, query);
    sendList(
      res,
      'bios',
      items.map((b) => presentBio(b, config.publicUrl)),
      total,
      query,
    );
  });

  router.post('/bio/add', validate({ body: bioCreateSchema }), async (req, res) => {
    const bio = await createBioPage(currentUser(req).id, req.body as BioCreate);
    sendCreated(res, { id: bio.id, link: bioPageUrl(config.publicUrl, bio.alias) });
  });

  router.delete('/bio/:id/delete', validate({ params: idParams }), async (req, res) => {
    await deleteBioPage(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Bio page has been successfully deleted.');
  });

  return router;
}
