import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendData, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { linkCacheFor } from './link-cache';
import { presentLink, presentLinkDetails } from './links.presenter';
import {
  linkCreateSchema,
  linkUpdateSchema,
  type LinkCreate,
  type LinkUpdate,
} from './links.schemas';
import { createLink, deleteLink, getLink, listLinks, updateLink } from './links.service';
import { shortUrlOf } from './short-url';

export function linksRouter(deps: AppDeps): Router {
  const { publicUrl } = deps.config;
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/urls', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total, origins } = await listLinks(currentUser(req).id, query);
    const clicks = await deps.visits.getClickCounts(
      'link',
      items.map((l) => l.id),
    );
    const urls = items.map((l) => presentLink(l, origins, publicUrl, clicks.get(l.id) ?? 0));
    sendList(res, 'urls', urls, total, query);
  });

  router.get('/url/:id', validate({ params: idParams }), async (req, res) => {
    const { link, origins } = await getLink(currentUser(req).id, Number(req.params.id));
    const data = await deps.visits.getStatistics({ kind: 'link', id: link.id });
    sendData(res, { details: presentLinkDetails(link, origins, publicUrl, data.clicks), data });
  });

  router.post('/url/add', validate({ body: linkCreateSchema }), async (req, res) => {
    const { link, origins } = await createLink(currentUser(req).id, req.body as LinkCreate, cache);
    const data = presentLink(link, origins, publicUrl, 0);
    await deps.webhooks?.emit(link.userId, 'link.created', data);
    sendCreated(res, { id: link.id, shorturl: shortUrlOf(link, origins, publicUrl) });
  });

  router.put(
    '/url/:id/update',
    validate({ params: idParams, body: linkUpdateSchema }),
    async (req, res) => {
      const userId = currentUser(req).id;
      await updateLink(userId, Number(req.params.id), req.body as LinkUpdate, cache);
      const { link, origins } = await getLink(userId, Number(req.params.id));
      const clicks = await deps.visits.getClickCounts('link', [link.id]);
      const data = presentLink(link, origins, publicUrl, clicks.get(link.id) ?? 0);
      await deps.webhooks?.emit(userId, 'link.updated', data);
      sendMessage(res, 'Link has been successfully updated.');
    },
  );

  router.delete('/url/:id/delete', validate({ params: idParams }), async (req, res) => {
    const userId = currentUser(req).id;
    await deleteLink(userId, Number(req.params.id), cache, deps.visits);
    await deps.webhooks?.emit(userId, 'link.deleted', { id: Number(req.params.id) });
    sendMessage(res, 'Link has been successfully deleted.');
  });

  return router;
}
