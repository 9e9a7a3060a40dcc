import { Router } from 'express';
import Joi from 'joi';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { AppError } from '../shared/errors/app-error';
import { withPlanSlot } from '../plans/plan-lock';
import { planLimitReached, planRoom } from '../plans/plans.service';
import {
  bulkBodySchema,
  bulkResponse,
  eachItem,
  itemValidator,
  runBulk,
  type BulkOutcome,
} from '../shared/http/bulk';
import { endpoint } from '../shared/http/endpoint';
import { idJson, sendData, urlJson } from '../shared/http/responses';
import { linkCacheFor } from './link-cache';
import { Link } from './link.model';
import { createLinks } from './links-bulk.service';
import { presentLink } from './links.presenter';
import {
  linkCreateSchema,
  linkUpdateSchema,
  type LinkCreate,
  type LinkUpdate,
} from './links.schemas';
import { deleteLink, updateLink } from './links.service';
import { shortUrlOf } from './short-url';

const tag = 'Links';
const linkId = Joi.number()
  .integer()
  .min(1)
  .max(2 ** 31 - 1);
const updateItemSchema = (linkUpdateSchema as Joi.ObjectSchema<UpdateItem>)
  .keys({ id: linkId.required() })
  .min(2);
type UpdateItem = LinkUpdate & { id: number };

/** Another user's id, or nobody's, fails its own item as a 404 naming the `id` field. */
async function namingId<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError && err.status === 404 && err.field === undefined)
      throw new AppError(404, err.code, err.message, { field: 'id' });
    throw err;
  }
}

const answer = { id: idJson, shorturl: urlJson };
const api = {
  create: endpoint({
    tag,
    scope: 'links:write',
    summary: 'Shorten up to 100 URLs at once',
    description:
      'Each item is a `url/add` body. One result per item, in order: `{error: 0, id, shorturl}` or `{error: 1, message, field}`; one bad item never fails the others. More than 100 items is a 422.',
    body: bulkBodySchema('urls', 'a url/add body'),
    example: { urls: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b' }] },
    responses: { 200: bulkResponse(answer, 'One result per item') },
  }),
  update: endpoint({
    tag,
    scope: 'links:write',
    summary: 'Change up to 100 short links at once',
    description: 'Each item is `{id, ...fields of url/:id/update}`; one result per item, in order.',
    body: bulkBodySchema('urls', 'an id with the fields of url/:id/update'),
    responses: { 200: bulkResponse(answer, 'One result per item') },
  }),
  delete: endpoint({
    tag,
    scope: 'links:write',
    summary: 'Delete up to 100 short links at once',
    description: 'One result per id, in order: `{error: 0, id}` or `{error: 1, message, field}`.',
    body: bulkBodySchema('ids', 'a link id'),
    responses: { 200: bulkResponse({ id: idJson }, 'One result per id') },
  }),
};

/** POST, PUT and DELETE /api/urls/bulk: many links per request, each item answered on its own. */
export function linksBulkRouter(deps: AppDeps): Router {
  const { publicUrl, plans } = deps.config;
  const cache = linkCacheFor(deps);
  const router = Router();

  router.post('/urls/bulk', api.create, async (req, res) => {
    const user = currentUser(req);
    const { urls } = req.body as { urls: unknown[] };
    const results = await runBulk(
      urls,
      itemValidator<LinkCreate>(linkCreateSchema),
      async (valid) => {
        // Counted and stored holding the user's slot (plan-lock.ts), as url/add and imports do.
        const { allowed, made } = await withPlanSlot(deps, plans, user, 'maxLinks', async () => {
          const room = await planRoom(plans, user, 'maxLinks', (userId) =>
            Link.countDocuments({ userId }),
          );
          const allowed = valid.slice(0, room);
          const values = allowed.map((v) => v.value);
          return { allowed, made: await createLinks(user.id, values, cache, publicUrl) };
        });
        const outcomes: Array<BulkOutcome<{ id: number; shorturl: string }>> = made.map((m) =>
          'link' in m ? { id: m.link.id, shorturl: shortUrlOf(m.link, m.origins, publicUrl) } : m,
        );
        await Promise.all(
          made.flatMap((m) =>
            'link' in m
              ? [
                  deps.webhooks?.emit(
                    user.id,
                    'link.created',
                    presentLink(m.link, m.origins, publicUrl, 0),
                  ),
                ]
              : [],
          ),
        );
        for (let i = allowed.length; i < valid.length; i += 1)
          outcomes.push(planLimitReached(plans, user, 'maxLinks'));
        return outcomes;
      },
    );
    sendData(res, { data: results });
  });

  router.put('/urls/bulk', api.update, async (req, res) => {
    const userId = currentUser(req).id;
    const { urls } = req.body as { urls: unknown[] };
    const update = async ({ id, ...input }: UpdateItem) => {
      const { link, origins } = await namingId(updateLink(userId, id, input, cache));
      await deps.webhooks?.emit(userId, 'link.updated', presentLink(link, origins, publicUrl, 0));
      return { id: link.id, shorturl: shortUrlOf(link, origins, publicUrl) };
    };
    const results = await runBulk(
      urls,
      itemValidator<UpdateItem>(updateItemSchema),
      eachItem(update),
    );
    sendData(res, { data: results });
  });

  router.delete('/urls/bulk', api.delete, async (req, res) => {
    const userId = currentUser(req).id;
    const { ids } = req.body as { ids: unknown[] };
    const remove = async (id: number) => {
      await namingId(deleteLink(userId, id, cache, deps.visits));
      await deps.webhooks?.emit(userId, 'link.deleted', { id });
      return { id };
    };
    const results = await runBulk(ids, itemValidator<number>(linkId), eachItem(remove));
    sendData(res, { data: results });
  });

  return router;
}
