import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { sendData, sendMessage } from '../shared/http/responses';
import { validate } from '../shared/http/validate';
import { presentAccount } from './account.presenter';
import { accountUpdateSchema, type AccountUpdate } from './account.schemas';
import type { AppDeps } from '../deps';
import { apiKeyCacheFor } from '../users/api-key-cache';
import { updateAccount } from './account.service';

export function accountRouter(deps: AppDeps): Router {
  const apiKeys = apiKeyCacheFor(deps);
  const router = Router();

  router.get('/account', (req, res) => {
    sendData(res, { data: presentAccount(currentUser(req)) });
  });

  router.put('/account/update', validate({ body: accountUpdateSchema }), async (req, res) => {
    await updateAccount(currentUser(req).id, req.body as AccountUpdate, apiKeys);
    sendMessage(res, 'Account has been successfully updated.');
  });

  return router;
}
