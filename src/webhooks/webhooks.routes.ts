import { withinPlan } from '../plans/plan-limit.middleware';
import { Webhook } from './webhook.model';
import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import Joi from 'joi';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { idParams } from '../shared/http/id-params';
import type { PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  dataResponse,
  record,
  sendCreated,
  sendData,
  sendList,
  sendMessage,
} from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { webhookSubscribersFor } from './webhook-subscribers';
import { deliveryJson, presentDelivery, presentWebhook, webhookJson } from './webhooks.presenter';
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

const tag = 'Webhooks';

/** Each route's validation and OpenAPI declaration. */
const api = {
  list: listEndpoint(tag, 'List your webhooks', 'webhooks', webhookJson, 'webhooks'),
  add: endpoint({
    tag,
    scope: 'webhooks:write',
    summary: 'Add a webhook',
    description:
      'The answer carries the signing secret, shown this once. 503 when the server has no `WEBHOOK_SECRET_KEY`.',
    body: webhookCreateSchema,
    example: { url: 'https://hooks.example.com/linkqr', events: ['link.created', 'qr.ready'] },
    responses: {
      200: createdResponse(
        { secret: Joi.string().description('signs each delivery; shown only here') },
        'The new webhook and its secret',
      ),
    },
    // 403: the plan's maxWebhooks (10 unless the plan says otherwise) is reached.
    errors: [403],
  }),
  update: updateEndpoint(
    tag,
    'Change a webhook (a disabled one is re-enabled)',
    webhookUpdateSchema,
    'webhooks',
  ),
  delete: deleteEndpoint(tag, 'Delete a webhook and its delivery log', 'webhooks'),
  deliveries: endpoint({
    tag,
    scope: 'webhooks:read',
    summary: "A webhook's recent delivery attempts, newest first",
    params: idParams,
    responses: {
      200: dataResponse(
        { data: record({ deliveries: Joi.array().items(deliveryJson) }) },
        'The deliveries',
      ),
    },
  }),
};

export function webhooksRouter(deps: AppDeps): Router {
  const { config } = deps;
  const ctx: WebhookServiceContext = {
    secretKey: config.webhookSecretKey,
    policy: { allowPrivate: config.webhookAllowPrivate || config.logoAllowPrivate },
    subscribers: webhookSubscribersFor(deps),
  };
  const router = Router();

  router.get('/webhooks', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listWebhooks(currentUser(req).id, query);
    sendList(res, 'webhooks', items.map(presentWebhook), total, query);
  });

  router.post(
    '/webhook/add',
    api.add,
    withinPlan(deps, 'maxWebhooks', Webhook),
    async (req, res) => {
      const { id, secret } = await createWebhook(
        currentUser(req).id,
        req.body as WebhookCreate,
        ctx,
      );
      sendCreated(res, { id, secret });
    },
  );

  router.put('/webhook/:id/update', api.update, async (req, res) => {
    const body = req.body as WebhookUpdate;
    await updateWebhook(currentUser(req).id, Number(req.params.id), body, ctx);
    sendMessage(res, 'Webhook has been successfully updated.');
  });

  router.delete('/webhook/:id/delete', api.delete, async (req, res) => {
    await deleteWebhook(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Webhook has been successfully deleted.');
  });

  router.get('/webhook/:id/deliveries', api.deliveries, async (req, res) => {
    const deliveries = await listDeliveries(currentUser(req).id, Number(req.params.id));
    sendData(res, { data: { deliveries: deliveries.map(presentDelivery) } });
  });

  return router;
}
