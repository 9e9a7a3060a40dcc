import { Router } from 'express';
import { currentUser, requireAdmin } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { linkCacheFor } from '../links/link-cache';
import { findPlan } from '../plans/plans.service';
import { qrServiceContext } from '../qr-codes/qr-codes.service';
import { idParams } from '../shared/http/id-params';
import { sendCreated, sendData, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { deleteUserAndContent } from './user-deletion';
import { presentUser } from './users.presenter';
import {
  userAddSchema,
  userListQuerySchema,
  type UserAdd,
  type UserListQuery,
} from './users.schemas';
import { createUser, getUser, listUsers } from './users.service';

/** GemPixel's admin user routes: an administrator's key only (403 for any other key). */
export function usersRouter(deps: AppDeps): Router {
  const { plans } = deps.config;
  const router = Router();

  router.get(
    '/users',
    requireAdmin,
    validate({ query: userListQuerySchema }),
    async (_req, res) => {
      const users = await listUsers(validatedQuery<UserListQuery>(res));
      sendData(res, { data: users.map((user) => presentUser(user, plans)) });
    },
  );

  router.get('/user/:id', requireAdmin, validate({ params: idParams }), async (req, res) => {
    const user = await getUser(Number(req.params.id));
    sendData(res, { data: presentUser(user, plans) });
  });

  router.post('/user/add', requireAdmin, validate({ body: userAddSchema }), async (req, res) => {
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

  router.delete(
    '/user/:id/delete',
    requireAdmin,
    validate({ params: idParams }),
    async (req, res) => {
      await deleteUserAndContent(Number(req.params.id), currentUser(req).id, {
        redis: deps.redis,
        keys: deps.keys,
        links: linkCacheFor(deps),
        visits: deps.visits,
        qr: qrServiceContext(deps),
      });
      sendMessage(res, 'User has been successfully deleted.');
    },
  );

  return router;
}
