import Joi from 'joi';
import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record, urlJson } from '../shared/http/responses';
import { WEBHOOK_EVENTS, type WebhookDeliveryRecord, type WebhookRecord } from './webhook.model';

/** A webhook as listed; its secret is never part of it. */
export function presentWebhook(hook: WebhookRecord) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    status: hook.disabledAt ? 'disabled' : 'active',
    disabledReason: hook.disabledReason ?? null,
    disabledAt: formatOptionalDateTime(hook.disabledAt),
    failingSince: formatOptionalDateTime(hook.failingSince),
    date: formatDateTime(hook.createdAt),
  };
}

export function presentDelivery(d: WebhookDeliveryRecord) {
  return {
    id: d.deliveryId,
    event: d.event,
    attempt: d.attempt,
    status: d.status ?? null,
    ok: d.ok,
    error: d.error ?? null,
    duration: d.durationMs,
    date: formatDateTime(d.at),
  };
}

const eventJson = Joi.string().valid(...WEBHOOK_EVENTS);

/** What `presentWebhook` writes. */
export const webhookJson = record({
  id: idJson,
  url: urlJson.example('https://hooks.example.com/linkqr'),
  events: Joi.array().items(eventJson),
  status: Joi.string().valid('active', 'disabled'),
  disabledReason: Joi.string().allow(null),
  disabledAt: dateTimeJson.allow(null),
  failingSince: dateTimeJson.allow(null),
  date: dateTimeJson,
});

/** What `presentDelivery` writes. */
export const deliveryJson = record({
  id: Joi.string(),
  event: eventJson,
  attempt: Joi.number().integer().min(1),
  status: Joi.number().integer().allow(null).description('HTTP status the receiver answered'),
  ok: Joi.boolean(),
  error: Joi.string().allow(null),
  duration: Joi.number().min(0).description('milliseconds'),
  date: dateTimeJson,
});
