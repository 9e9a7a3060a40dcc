import { Router } from 'express';
import Joi from 'joi';
import { actorOf } from '../auth/auth-state';
import { currentUser, viaSession } from '../auth/auth.middleware';
import { confirmCurrentPassword } from '../account/account.service';
import type { AppDeps } from '../deps';
import { endpoint } from '../shared/http/endpoint';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  dataResponse,
  dateTimeJson,
  listResponse,
  messageResponse,
  sendCreated,
  sendList,
  sendMessage,
} from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { apiKeyCacheFor } from '../users/api-key-cache';
import { findUserById } from '../users/users.service';
import { formatOptionalDateTime } from '../shared/format/dates';
import { keyJson, presentDefaultKey, presentKey } from './keys.presenter';
import {
  keyCreateSchema,
  keyParams,
  keyRotateSchema,
  type KeyCreate,
  type KeyRotate,
} from './keys.schemas';
import { createKey, listKeys, revokeKey, rotateKey } from './keys.service';

const tag = 'Keys';
const newKey = Joi.string().description('the key, shown only here').example('lqr_…');

const api = {
  list: endpoint({
    tag,
    scope: 'keys:read',
    summary: 'List your API keys: the default key (id 0) first, then the named keys',
    query: pageQuerySchema,
    responses: { 200: listResponse('keys', keyJson, 'A page of keys; never a key itself') },
  }),
  add: endpoint({
    tag,
    scope: 'keys:write',
    summary: 'Add a named key with scopes',
    description:
      'Scopes are `*` or `<resource>:read` / `<resource>:write` (`write` implies `read`). The answer carries the key, shown this once.',
    body: keyCreateSchema,
    example: { name: 'reporting script', scopes: ['stats:read', 'links:read'] },
    responses: { 200: createdResponse({ key: newKey }, 'The new key') },
  }),
  rotate: endpoint({
    tag,
    scope: 'keys:write',
    summary: 'Give a key a new secret; the old one may keep working for a grace period',
    description:
      '`grace` in seconds (up to 604800, a week; 0 or absent: the old key stops at once). Rotating again ends an earlier grace period.',
    params: keyParams,
    body: keyRotateSchema,
    example: { grace: 86400 },
    responses: {
      200: dataResponse(
        {
          id: Joi.number().integer().min(0).description('the key rotated; 0 is the default key'),
          key: newKey,
          previousuntil: dateTimeJson.allow(null).description('when the old key stops working'),
        },
        'The new key',
      ),
    },
  }),
  revoke: endpoint({
    tag,
    scope: 'keys:write',
    summary: 'Revoke a named key (and its predecessor in grace), at once in every process',
    params: keyParams,
    responses: { 200: messageResponse('Revoked') },
    errors: [422],
  }),
};

export function keysRouter(deps: AppDeps): Router {
  const apiKeys = apiKeyCacheFor(deps);
  const router = Router();

  router.get('/keys', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const now = new Date();
    const user = (await findUserById(currentUser(req).id)) ?? currentUser(req);
    const all = [
      presentDefaultKey(user, now),
      ...(await listKeys(user.id)).map((k) => presentKey(k, now)),
    ];
    const start = (query.page - 1) * query.limit;
    sendList(res, 'keys', all.slice(start, start + query.limit), all.length, query);
  });

  // A key outlives the session that made it: a session proves itself with the password first.
  router.post('/keys/add', api.add, async (req, res) => {
    const body = req.body as KeyCreate;
    if (viaSession(req))
      await confirmCurrentPassword(actorOf(req) ?? currentUser(req), body.current);
    const { id, key } = await createKey(currentUser(req).id, body);
    sendCreated(res, { id, key });
  });

  router.post('/key/:id/rotate', api.rotate, async (req, res) => {
    const { grace, current } = req.body as KeyRotate;
    if (viaSession(req)) await confirmCurrentPassword(actorOf(req) ?? currentUser(req), current);
    const issued = await rotateKey(currentUser(req), Number(req.params.id), grace, apiKeys);
    res.json({
      error: 0,
      id: issued.id,
      key: issued.key,
      previousuntil: formatOptionalDateTime(issued.previousUntil),
    });
  });

  router.delete('/key/:id/delete', api.revoke, async (req, res) => {
    await revokeKey(currentUser(req).id, Number(req.params.id), apiKeys);
    sendMessage(res, 'Key has been revoked.');
  });

  return router;
}
