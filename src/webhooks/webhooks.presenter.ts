import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import type { WebhookDeliveryRecord, WebhookRecord } from './webhook.model';

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
