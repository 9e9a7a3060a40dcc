import Joi from 'joi';
import { WEBHOOK_EVENTS, type WebhookEvent } from './webhook.model';

export interface WebhookCreate {
  url: string;
  events: WebhookEvent[];
}

export interface WebhookUpdate {
  url?: string;
  events?: WebhookEvent[];
  /** `true` re-enables a webhook that was disabled for failing. */
  active?: boolean;
}

const url = Joi.string().trim().max(2000);
const events = Joi.array()
  .items(Joi.string().valid(...WEBHOOK_EVENTS))
  .min(1)
  .unique();

export const webhookCreateSchema = Joi.object<WebhookCreate>({
  url: url.required(),
  events: events.required(),
});

export const webhookUpdateSchema = Joi.object<WebhookUpdate>({
  url,
  events,
  active: Joi.boolean(),
})
  .min(1)
  .messages({ 'object.min': 'send at least one of url, events, active' });
