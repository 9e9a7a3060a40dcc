import { randomUUID } from 'node:crypto';
import type { Clock } from '../shared/cache/cache-bus';
import { Queue, type JobsOptions } from 'bullmq';
import { fairShare } from '../shared/infra/fair-share';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { Logger } from '../shared/infra/logger';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { bullPrefix } from '../qr-codes/qr-codes.jobs';
import { Webhook, type WebhookEvent, type WebhookRecord } from './webhook.model';
import { hasSubscribers, webhookSubscribersFor } from './webhook-subscribers';

/** The delivery job contract, shared by the producers (API, drainer, renderer) and the worker. */
export const WEBHOOK_QUEUE = 'webhook-delivery';

/** The event itself travels in the job (it is what was true when it happened), the secret never. */
export interface WebhookJob {
  webhookId: number;
  /** The webhook's owner, for per-user fairness (jobs queued before it carry none). */
  userId?: number;
  event: WebhookEvent;
  /** When the event happened (ISO 8601); the same in every attempt's body. */
  created: string;
  data: unknown;
}

/** The per-user fairness of the delivery queue (see fair-share.ts), for producers and worker. */
export function webhookFairShare(redis: RedisClient, keys: RedisKeys, addGraceMs?: number) {
  return fairShare({ redis, keys, bullPrefix: bullPrefix(keys), queue: WEBHOOK_QUEUE, addGraceMs });
}

/**
 * A delivery's job id, chosen before it is queued so its rank can be counted by id. It is also
 * the delivery id receivers see (`Linkqr-Delivery`), the same on every retry.
 */
export const webhookJobId = () => `wh-${randomUUID()}`;

export function webhookJobOptions(retryDelayMs: number, attempts: number): JobsOptions {
  return {
    attempts,
    // With the default 30 s: 30 s, 1 min, 2 min, ... about 4 h 15 min over 10 attempts.
    backoff: { type: 'exponential', delay: retryDelayMs },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
  };
}

/** Tells the owner's webhooks that something happened; never throws (an event is not worth a 500). */
export interface WebhookEvents {
  emit(userId: number, event: WebhookEvent, data: unknown): Promise<void>;
  /** Whether any enabled webhook subscribes to the event: a cached answer, no query. */
  subscribed(event: WebhookEvent): Promise<boolean>;
  close(): Promise<void>;
}

export function createWebhookEvents(options: {
  connection: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  retryDelayMs: number;
  attempts: number;
  /** The clock of the process's cache bus, which this may be the first to create (tests set one). */
  cacheClock?: Clock;
}): WebhookEvents {
  const { logger } = options;
  const queue = new Queue<WebhookJob>(WEBHOOK_QUEUE, {
    connection: options.connection,
    prefix: bullPrefix(options.keys),
    defaultJobOptions: webhookJobOptions(options.retryDelayMs, options.attempts),
  });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'webhook queue error'));
  const subscribers = webhookSubscribersFor({
    redis: options.connection,
    keys: options.keys,
    logger,
    cacheClock: options.cacheClock,
  });
  const subscribed = (event: WebhookEvent) => hasSubscribers(subscribers, event);
  const fair = webhookFairShare(options.connection, options.keys);
  return {
    subscribed,
    async emit(userId, event, data) {
      try {
        // Every render and every drained batch of clicks emits: while nobody subscribes to the
        // event that costs a cache lookup, otherwise one driver query.
        if (!(await subscribed(event))) return;
        const hooks = await Webhook.collection
          .find<Pick<WebhookRecord, 'id'>>({ userId, events: event, disabledAt: null })
          .toArray();
        if (hooks.length === 0) return;
        const created = new Date().toISOString();
        // A user's n-th outstanding delivery waits behind everyone's (n-1)-th (issue 29, M7).
        const jobIds = hooks.map(() => webhookJobId());
        const priorities = await fair.ranks(userId, jobIds);
        await queue
          .addBulk(
            hooks.map((h, i) => ({
              name: event,
              data: { webhookId: h.id, userId, event, created, data },
              opts: { jobId: jobIds[i], priority: priorities[i] },
            })),
          )
          .catch(async (err: unknown) => {
            await Promise.all(jobIds.map((id) => fair.release(userId, id))).catch(() => undefined);
            throw err;
          });
      } catch (err) {
        logger.warn({ err: (err as Error).message, userId, event }, 'webhook event not queued');
      }
    },
    close: () => queue.close(),
  };
}
