import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import { Webhook, WEBHOOK_EVENTS, type WebhookEvent } from './webhook.model';

interface Subscribed {
  event: WebhookEvent;
}

export type WebhookSubscribers = SharedCache<Subscribed>;

/**
 * Whether any enabled webhook subscribes to an event, by event. Every event asks before it looks
 * for the owner's webhooks (`WebhookEvents`); the API invalidates when a webhook is added or changed, the two changes that can
 * turn the answer to yes. A stale yes (a webhook deleted, or disabled by failing deliveries) only
 * costs the batch a lookup that finds nobody to deliver to.
 */
export function webhookSubscribersFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): WebhookSubscribers {
  return sharedCache<Subscribed>(cacheBusFor(deps), {
    name: 'webhook-subscribers',
    max: WEBHOOK_EVENTS.length,
    ttlMs: 60_000,
    missMax: WEBHOOK_EVENTS.length,
    missTtlMs: 60_000,
  });
}

export async function hasSubscribers(
  subscribers: WebhookSubscribers,
  event: WebhookEvent,
): Promise<boolean> {
  const found = await subscribers.get(event, async () =>
    (await Webhook.exists({ events: event, disabledAt: null })) ? { event } : null,
  );
  return found !== null;
}

/** After a webhook is added or changed: every process asks MongoDB again. */
export function subscribersChanged(subscribers: Pick<WebhookSubscribers, 'invalidate'>) {
  return subscribers.invalidate(WEBHOOK_EVENTS);
}
