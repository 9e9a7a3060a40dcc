import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendData, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { presentDelivery, presentWebhook } from './webhooks.presenter';
import {
  webhookCreateSchema,
  webhookUpdateSchema,
  type WebhookCreate,
  type WebhookUpdate,
} from './webhooks.schemas';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  updateWebhook,
  type WebhookServiceContext,
} from './webhooks.service';

export function webhooksRouter(deps: AppDeps): Router {
  const { config } = deps;
  const ctx: WebhookServiceContext = {
    secretKey: config.webhookSecretKey,
    policy: { allowPrivate: config.webhookAllowPrivate || config.logoAllowPrivate },
  };
  const router = Router();

  router.get('/webhooks', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listWebhooks(currentUser(req).id, query);
    sendList(res, 'webhooks', items.map(presentWebhook), total, query);
  });

  router.post('/webhook/add', validate({ body: webhookCreateSchema }), async (req, res) => {
    const { id, secret } = await createWebhook(currentUser(req).id, req.body as WebhookCreate, ctx);
    sendCreated(res, { id, secret });
  });

  router.put(
    '/webhook/:id/update',
    validate({ params: idParams, body: webhookUpdateSchema }),
    async (req, res) => {
      const body = req.body as WebhookUpdate;
      await updateWebhook(currentUser(req).id, Number(req.params.id), body, ctx);
      sendMessage(res, 'Webhook has been successfully updated.');
    },
  );

  router.delete('/webhook/:id/delete', validate({ params: idParams }), async (req, res) => {
    await deleteWebhook(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Webhook has been successfully deleted.');
  });

  router.get('/webhook/:id/deliveries', validate({ params: idParams }), async (req, res) => {
    const deliveries = await listDeliveries(currentUser(req).id, Number(req.params.id));
    sendData(res, { data: { deliveries: deliveries.map(presentDelivery) } });
  });

  return router;
}
