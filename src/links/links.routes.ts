import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import type { PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  dataResponse,
  sendCreated,
  sendData,
  sendList,
  sendMessage,
  urlJson,
} from '../shared/http/responses';
import { statisticsJson } from '../shared/visits/visits.types';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { linkCacheFor } from './link-cache';
import { linkDetailsJson, linkJson, presentLink, presentLinkDetails } from './links.presenter';
import {
  linkCreateSchema,
  linkUpdateSchema,
  type LinkCreate,
  type LinkUpdate,
} from './links.schemas';
import { createLink, deleteLink, getLink, listLinks, updateLink } from './links.service';
import { shortUrlOf } from './short-url';

const tag = 'Links';

/** Each route's validation and OpenAPI declaration. */
const api = {
  list: listEndpoint(tag, 'List your short links', 'urls', linkJson),
  get: endpoint({
    tag,
    summary: 'One short link with its statistics',
    params: idParams,
    responses: {
      200: dataResponse({ details: linkDetailsJson, data: statisticsJson }, 'The link'),
    },
  }),
  add: endpoint({
    tag,
    summary: 'Shorten a URL',
    body: linkCreateSchema,
    example: { url: 'https://example.com/spring-sale', custom: 'spring', title: 'Spring sale' },
    responses: {
      200: createdResponse(
        { shorturl: urlJson.example('https://go.example.com/spring') },
        'The new short link',
      ),
    },
    errors: [409],
  }),
  update: updateEndpoint(tag, 'Change a short link', linkUpdateSchema),
  delete: deleteEndpoint(tag, 'Delete a short link and its statistics'),
};

export function linksRouter(deps: AppDeps): Router {
  const { publicUrl } = deps.config;
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/urls', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total, origins } = await listLinks(currentUser(req).id, query);
    const clicks = await deps.visits.getClickCounts(
      'link',
      items.map((l) => l.id),
    );
    const urls = items.map((l) => presentLink(l, origins, publicUrl, clicks.get(l.id) ?? 0));
    sendList(res, 'urls', urls, total, query);
  });

  router.get('/url/:id', api.get, async (req, res) => {
    const { link, origins } = await getLink(currentUser(req).id, Number(req.params.id));
    const data = await deps.visits.getStatistics({ kind: 'link', id: link.id });
    sendData(res, { details: presentLinkDetails(link, origins, publicUrl, data.clicks), data });
  });

  router.post('/url/add', api.add, async (req, res) => {
    const { link, origins } = await createLink(currentUser(req).id, req.body as LinkCreate, cache);
    sendCreated(res, { id: link.id, shorturl: shortUrlOf(link, origins, publicUrl) });
  });

  router.put('/url/:id/update', api.update, async (req, res) => {
    await updateLink(currentUser(req).id, Number(req.params.id), req.body as LinkUpdate, cache);
    sendMessage(res, 'Link has been successfully updated.');
  });

  router.delete('/url/:id/delete', api.delete, async (req, res) => {
    await deleteLink(currentUser(req).id, Number(req.params.id), cache, deps.visits);
    sendMessage(res, 'Link has been successfully deleted.');
  });

  return router;
}
