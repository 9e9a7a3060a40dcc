import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import type { PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  sendCreated,
  sendList,
  sendMessage,
  urlJson,
} from '../shared/http/responses';
import { deleteEndpoint, listEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { bioPageUrl } from './bio-url';
import { bioJson, presentBio } from './bio.presenter';
import { bioCreateSchema, type BioCreate } from './bio.schemas';
import { createBioPage, deleteBioPage, listBioPages } from './bio.service';

const tag = 'Bio pages';

const api = {
  list: listEndpoint(tag, 'List your bio pages', 'bios', bioJson, 'links'),
  add: endpoint({
    tag,
    scope: 'links:write',
    summary: 'Create a bio page',
    body: bioCreateSchema,
    example: { name: 'Ada', alias: 'ada', links: [{ title: 'Blog', url: 'https://ada.example' }] },
    responses: { 200: createdResponse({ link: urlJson }, 'The new bio page') },
    errors: [409],
  }),
  delete: deleteEndpoint(tag, 'Delete a bio page', 'links'),
};

export function bioRouter({ config }: AppDeps): Router {
  const router = Router();

  router.get('/bio', api.list, async (req, res) => {
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

  router.post('/bio/add', api.add, async (req, res) => {
    const bio = await createBioPage(currentUser(req).id, req.body as BioCreate);
    sendCreated(res, { id: bio.id, link: bioPageUrl(config.publicUrl, bio.alias) });
  });

  router.delete('/bio/:id/delete', api.delete, async (req, res) => {
    await deleteBioPage(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Bio page has been successfully deleted.');
  });

  return router;
}
