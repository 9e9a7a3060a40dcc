import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import { idParams } from '../shared/http/id-params';
import { notFound } from '../shared/errors/app-error';
import { sendCreated, sendData, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { linkCacheFor } from './link-cache';
import { Link } from './link.model';
import { presentLink, presentLinkDetails } from './links.presenter';
import {
  linkCreateSchema,
  linkListQuerySchema,
  linkUpdateSchema,
  type LinkCreate,
  type LinkListQuery,
  type LinkUpdate,
} from './links.schemas';
import {
  createLink,
  deleteLink,
  findLinkByShort,
  getLink,
  listLinks,
  updateLink,
} from './links.service';
import { shortUrlOf } from './short-url';

export function linksRouter(deps: AppDeps): Router {
  const { publicUrl } = deps.config;
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/urls', validate({ query: linkListQuerySchema }), async (req, res) => {
    const query = validatedQuery<LinkListQuery>(res);
    const userId = currentUser(req).id;
    if (query.short !== undefined) {
      const found = await findLinkByShort(userId, query.short, publicUrl);
      if (!found) throw notFound('Link not found');
      const clicks = await deps.visits.getClickCounts('link', [found.link.id]);
      const details = presentLinkDetails(
        found.link,
        found.origins,
        publicUrl,
        clicks.get(found.link.id) ?? 0,
      );
      return sendData(res, { data: details });
    }
    const { items, total, clicks, origins } = await listLinks(userId, query, deps.visits);
    const urls = items.map((l) => presentLink(l, origins, publicUrl, clicks.get(l.id) ?? 0));
    sendList(res, 'urls', urls, total, query);
  });

  router.get('/url/:id', validate({ params: idParams }), async (req, res) => {
    const { link, origins } = await getLink(currentUser(req).id, Number(req.params.id));
    const data = await deps.visits.getStatistics({ kind: 'link', id: link.id });
    sendData(res, { details: presentLinkDetails(link, origins, publicUrl, data.clicks), data });
  });

  router.post(
    '/url/add',
    validate({ body: linkCreateSchema }),
    withinPlan(deps.config.plans, 'maxLinks', Link),
    async (req, res) => {
      const input = req.body as LinkCreate;
      const { link, origins } = await createLink(currentUser(req).id, input, cache, publicUrl);
      const shorturl = shortUrlOf(link, origins, publicUrl);
      const data = presentLink(link, origins, publicUrl, 0);
      await deps.webhooks?.emit(link.userId, 'link.created', data);
      // `short` repeats it: older GemPixel versions answered under that name.
      sendCreated(res, { id: link.id, shorturl, short: shorturl });
    },
  );

  router.put(
    '/url/:id/update',
    validate({ params: idParams, body: linkUpdateSchema }),
    async (req, res) => {
      const id = Number(req.params.id);
      const { link, origins } = await updateLink(
        currentUser(req).id,
        id,
        req.body as LinkUpdate,
        cache,
      );
      const clicks = await deps.visits.getClickCounts('link', [link.id]);
      const data = presentLink(link, origins, publicUrl, clicks.get(link.id) ?? 0);
      await deps.webhooks?.emit(link.userId, 'link.updated', data);
      sendData(res, {
        id: link.id,
        short: shortUrlOf(link, origins, publicUrl),
        message: 'Link has been successfully updated.',
      });
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
