import { Router } from 'express';
import { currentUser, viaSession } from '../auth/auth.middleware';
import { keepThisSession } from '../dashboard/session';
import { dataResponse, messageResponse, sendData, sendMessage } from '../shared/http/responses';
import { endpoint } from '../shared/http/endpoint';
import { accountJson, presentAccount } from './account.presenter';
import { accountUpdateSchema, type AccountUpdate } from './account.schemas';
import type { AppDeps } from '../deps';
import { apiKeyCacheFor } from '../users/api-key-cache';
import { confirmCurrentPassword, updateAccount } from './account.service';

const tag = 'Account';

const api = {
  get: endpoint({
    tag,
    scope: 'account:read',
    summary: 'Your account',
    responses: { 200: dataResponse({ data: accountJson }, 'The account of the key') },
  }),
  update: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Change your email or password',
    body: accountUpdateSchema,
    description:
      'With an API key the key is enough. From a dashboard session (/app/api) the body must also ' +
      'carry `current`, the current password; a new password ends every other dashboard session.',
    responses: { 200: messageResponse('Updated') },
    errors: [409],
  }),
};

export function accountRouter(deps: AppDeps): Router {
  const apiKeys = apiKeyCacheFor(deps);
  const router = Router();

  router.get('/account', api.get, (req, res) => {
    sendData(res, { data: presentAccount(currentUser(req)) });
  });

  router.put('/account/update', api.update, async (req, res) => {
    const user = currentUser(req);
    const update = req.body as AccountUpdate;
    if (viaSession(req)) await confirmCurrentPassword(user, update.current);
    await updateAccount(user.id, update, apiKeys);
    if (update.password !== undefined && viaSession(req)) await keepThisSession(req, user.id);
    sendMessage(res, 'Account has been successfully updated.');
  });

  return router;
}
