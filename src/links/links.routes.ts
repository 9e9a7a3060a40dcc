import { Router } from 'express';
import Joi from 'joi';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import { notFound } from '../shared/errors/app-error';
import { deleteEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { idParams } from '../shared/http/id-params';
import {
  createdResponse,
  dataResponse,
  idJson,
  listResponse,
  record,
  sendCreated,
  sendData,
  sendList,
  sendMessage,
  urlJson,
} from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { statisticsJson } from '../visits/visits.types';
import { linkCacheFor } from './link-cache';
import { Link } from './link.model';
import { linkDetailsJson, linkJson, presentLink, presentLinkDetails } from './links.presenter';
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

const tag = 'Links';
const shortUrl = urlJson.example('https://go.example.com/spring');

/** Each route's validation and OpenAPI declaration. */
const api = {
  list: endpoint({
    tag,
    scope: 'links:read',
    summary: 'List your short links, or find one by its short URL',
    description:
      'With `short` (an alias or a full short URL) the answer is that one link as `{error: 0, data: {...details}}`, or 404. With `after` (the last link seen) the next page in either order, read off an index whatever the depth; 422 when `after` names none of your links.',
    query: linkListQuerySchema,
    responses: {
      200: {
        description: 'A page of links, or the one link named by `short`',
        schema: Joi.alternatives(
          listResponse('urls', linkJson, 'A page').schema as Joi.Schema,
          record({ error: Joi.number().valid(0), data: linkDetailsJson }),
        ),
      },
    },
    errors: [404, 422],
  }),
  get: endpoint({
    tag,
    scope: 'links:read',
    summary: 'One short link with its statistics',
    params: idParams,
    responses: {
      200: dataResponse({ details: linkDetailsJson, data: statisticsJson }, 'The link'),
    },
  }),
  add: endpoint({
    tag,
    scope: 'links:write',
    summary: 'Shorten a URL',
    description: '`short` repeats `shorturl`, as older GemPixel versions answered.',
    body: linkCreateSchema,
    example: { url: 'https://example.com/spring-sale', custom: 'spring', title: 'Spring sale' },
    responses: {
      200: createdResponse({ shorturl: shortUrl, short: shortUrl }, 'The new short link'),
    },
    errors: [403, 409],
  }),
  update: endpoint({
    tag,
    scope: 'links:write',
    summary: 'Change a short link',
    params: idParams,
    body: linkUpdateSchema,
    responses: {
      200: dataResponse(
        { id: idJson, short: shortUrl, message: Joi.string() },
        'The link as it now is',
      ),
    },
    errors: [409],
  }),
  delete: deleteEndpoint(tag, 'Delete a short link and its statistics', 'links'),
};

export function linksRouter(deps: AppDeps): Router {
  const { publicUrl } = deps.config;
  const cache = linkCacheFor(deps);
  const router = Router();

  router.get('/urls', api.list, async (req, res) => {
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

  router.get('/url/:id', api.get, async (req, res) => {
    const { link, origins } = await getLink(currentUser(req).id, Number(req.params.id));
    const target = { kind: 'link' as const, id: link.id };
    const [data, variantClicks] = await Promise.all([
      deps.visits.getStatistics(target),
      link.variants?.length ? deps.visits.getVariantClicks(target) : new Map<string, number>(),
    ]);
    const details = presentLinkDetails(link, origins, publicUrl, data.clicks, variantClicks);
    sendData(res, { details, data });
  });

  router.post('/url/add', api.add, withinPlan(deps, 'maxLinks', Link), async (req, res) => {
    const input = req.body as LinkCreate;
    const { link, origins } = await createLink(currentUser(req).id, input, cache, publicUrl);
    const shorturl = shortUrlOf(link, origins, publicUrl);
    const data = presentLink(link, origins, publicUrl, 0);
    await deps.webhooks?.emit(link.userId, 'link.created', data);
    // `short` repeats it: older GemPixel versions answered under that name.
    sendCreated(res, { id: link.id, shorturl, short: shorturl });
  });

  router.put('/url/:id/update', api.update, async (req, res) => {
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
  });

  router.delete('/url/:id/delete', api.delete, async (req, res) => {
    const userId = currentUser(req).id;
    await deleteLink(userId, Number(req.params.id), cache, deps.visits);
    await deps.webhooks?.emit(userId, 'link.deleted', { id: Number(req.params.id) });
    sendMessage(res, 'Link has been successfully deleted.');
  });

  return router;
}
