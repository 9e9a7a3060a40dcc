import { Router } from 'express';
import { currentUser, requireAdmin } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { findPlan } from '../plans/plans.service';
import { idParams } from '../shared/http/id-params';
import Joi from 'joi';
import { deleteEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import {
  createdResponse,
  dataResponse,
  record,
  sendCreated,
  sendData,
  sendMessage,
} from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { deleteUserAndContent, userDeletionContextFor } from './user-deletion';
import { presentUser, userJson } from './users.presenter';
import {
  userAddSchema,
  userListQuerySchema,
  type UserAdd,
  type UserListQuery,
} from './users.schemas';
import { createUser, getUser, listUsers } from './users.service';

const tag = 'Admin';

const api = {
  list: endpoint({
    tag,
    scope: '*',
    summary: 'List users (administrators only)',
    query: userListQuerySchema,
    responses: { 200: dataResponse({ data: Joi.array().items(userJson) }, 'The users') },
    errors: [403],
  }),
  get: endpoint({
    tag,
    scope: '*',
    summary: 'One user (administrators only)',
    params: idParams,
    responses: { 200: dataResponse({ data: userJson }, 'The user') },
    errors: [403],
  }),
  add: endpoint({
    tag,
    scope: '*',
    summary: 'Create a user and its API key (administrators only)',
    description: 'The key is in this answer only: linkqr stores its hash.',
    body: userAddSchema,
    responses: {
      200: createdResponse(
        {
          message: Joi.string(),
          data: record({
            id: Joi.number().integer(),
            email: Joi.string(),
            username: Joi.string(),
            apikey: Joi.string(),
          }),
        },
        'The new user, with its key',
      ),
    },
    errors: [403, 404, 409],
  }),
  delete: deleteEndpoint(
    tag,
    'Delete a user and everything they own (administrators only; never yourself: 422)',
    '*',
    [403, 422],
  ),
};

/** GemPixel's admin user routes: an administrator's key only (403 for any other key). */
export function usersRouter(deps: AppDeps): Router {
  const { plans } = deps.config;
  const router = Router();
  const deletion = userDeletionContextFor(deps);

  router.get('/users', requireAdmin, api.list, async (_req, res) => {
    const users = await listUsers(validatedQuery<UserListQuery>(res));
    sendData(res, { data: users.map((user) => presentUser(user, plans)) });
  });

  router.get('/user/:id', requireAdmin, api.get, async (req, res) => {
    const user = await getUser(Number(req.params.id));
    sendData(res, { data: presentUser(user, plans) });
  });

  router.post('/user/add', requireAdmin, api.add, async (req, res) => {
    const input = req.body as UserAdd;
    const plan = input.planid === undefined ? undefined : findPlan(plans, input.planid);
    const { user, apiKey } = await createUser({
      email: input.email,
      username: input.username,
      password: input.password,
      plan: plan?.name,
      expires: input.expiration,
    });
    sendCreated(res, {
      id: user.id,
      message: 'User has been successfully created.',
      // The key exists in clear only in this answer: linkqr stores its hash.
      data: { id: user.id, email: user.email, username: user.username, apikey: apiKey },
    });
  });

  router.delete('/user/:id/delete', requireAdmin, api.delete, async (req, res) => {
    await deleteUserAndContent(Number(req.params.id), currentUser(req).id, deletion);
    sendMessage(res, 'User has been successfully deleted.');
  });

  return router;
}
