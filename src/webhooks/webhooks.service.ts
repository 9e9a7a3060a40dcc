import type { Model } from 'mongoose';
import type { Invalidator } from '../shared/cache/shared-cache';
import { deleteOwned, findOwned, listOwned } from '../shared/db/owned';
import { serviceUnavailable, validation } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import type { PageQuery } from '../shared/http/pagination';
import { Webhook, WebhookDelivery, type WebhookRecord } from './webhook.model';
import { encryptSecret, generateWebhookSecret, keyIdOf } from './webhook-secret';
import { subscribersChanged } from './webhook-subscribers';
import {
  parseWebhookUrl,
  resolveWebhookTarget,
  WebhookTargetError,
  type TargetPolicy,
} from './webhook-target';
import type { WebhookCreate, WebhookUpdate } from './webhooks.schemas';

export interface WebhookServiceContext {
  secretKey: Buffer | undefined;
  policy: TargetPolicy;
  subscribers: Invalidator;
}

const owned = Webhook as unknown as Model<WebhookRecord>;
const LABEL = 'Webhook';
const RECENT_DELIVERIES = 50;

async function checkUrl(value: string, policy: TargetPolicy): Promise<string> {
  try {
    const url = parseWebhookUrl(value);
    await resolveWebhookTarget(url, policy);
    return url.toString();
  } catch (err) {
    if (err instanceof WebhookTargetError) throw validation(err.message, 'url');
    throw err;
  }
}

/** Creates the webhook; the answer is the only time its secret is ever shown. */
export async function createWebhook(
  userId: number,
  input: WebhookCreate,
  ctx: WebhookServiceContext,
): Promise<{ id: number; secret: string }> {
  if (!ctx.secretKey) {
    throw serviceUnavailable('Webhooks are not configured: set WEBHOOK_SECRET_KEY');
  }
  const url = await checkUrl(input.url, ctx.policy);
  const secret = generateWebhookSecret();
  const id = await nextId('webhooks');
  await Webhook.create({
    id,
    userId,
    url,
    events: input.events,
    secret: encryptSecret(secret, ctx.secretKey),
    secretKeyId: keyIdOf(ctx.secretKey),
    createdAt: new Date(),
  });
  await subscribersChanged(ctx.subscribers);
  return { id, secret };
}

export function listWebhooks(userId: number, query: PageQuery) {
  return listOwned(owned, userId, query);
}

export async function updateWebhook(
  userId: number,
  id: number,
  input: WebhookUpdate,
  ctx: WebhookServiceContext,
): Promise<void> {
  await findOwned(owned, userId, id, LABEL);
  const set: Record<string, unknown> = {};
  if (input.url !== undefined) set.url = await checkUrl(input.url, ctx.policy);
  if (input.events !== undefined) set.events = input.events;
  if (input.active === true)
    Object.assign(set, {
      disabledAt: null,
      disabledReason: null,
      failingSince: null,
      consecutiveTimeouts: 0,
    });
  if (input.active === false)
    Object.assign(set, { disabledAt: new Date(), disabledReason: 'disabled by its owner' });
  await Webhook.updateOne({ id, userId }, { $set: set });
  await subscribersChanged(ctx.subscribers);
}

export async function deleteWebhook(userId: number, id: number): Promise<void> {
  await deleteOwned(owned, userId, id, LABEL);
  await WebhookDelivery.deleteMany({ webhookId: id });
}

/** The latest attempts, newest first. */
export async function listDeliveries(userId: number, id: number) {
  await findOwned(owned, userId, id, LABEL);
  return WebhookDelivery.find({ webhookId: id }).sort({ at: -1 }).limit(RECENT_DELIVERIES).lean();
}
