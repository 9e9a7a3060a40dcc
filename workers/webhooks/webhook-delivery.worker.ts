import { Worker } from 'bullmq';
import type { Config } from '../../src/config';
import type { Logger } from '../../src/shared/infra/logger';
import {
  closeRedisClient,
  createRedisClient,
  redisAnswers,
} from '../../src/shared/infra/redis-connections';
import type { RedisKeys } from '../../src/shared/infra/redis-keys';
import { bullPrefix } from '../../src/qr-codes/qr-codes.jobs';
import { WEBHOOK_QUEUE, webhookFairShare, type WebhookJob } from '../../src/webhooks/webhooks.jobs';
import { createWebhookDeliveryProcessor, type WebhookOutcome } from './webhook-delivery.processor';

/** What the worker reports about each delivery attempt (the worker's metrics). */
export interface WebhookDeliveryObserver {
  /** `delivered`, `skipped` (webhook gone or disabled) or `failed` (retried unless final). */
  attempted(outcome: WebhookOutcome | 'failed'): void;
}

export interface WebhookWorker {
  close(): Promise<void>;
}

/** Consumes webhook deliveries; a slow receiver holds one of `concurrency` slots, nothing more. */
export function startWebhookWorker(
  deps: { config: Config; logger: Logger; keys: RedisKeys; observer?: WebhookDeliveryObserver },
  options: { concurrency?: number; timeoutMs?: number } = {},
): WebhookWorker {
  const { config, logger, keys } = deps;
  const connection = createRedisClient(config.redis, 'blocking');
  connection.on('error', (err: Error) =>
    logger.warn({ err: err.message }, 'webhook worker redis error'),
  );
  const processor = createWebhookDeliveryProcessor({
    secretKey: config.webhookSecretKey,
    policy: { allowPrivate: config.webhookAllowPrivate || config.logoAllowPrivate },
    logger,
    timeoutMs: options.timeoutMs,
  });
  const concurrency = options.concurrency ?? 8;
  // One user's slow or dead targets hold at most half the slots (issue 29, M7).
  const fair = webhookFairShare(connection, keys, concurrency);
  const fairProcessor = fair.wrap<WebhookJob, WebhookOutcome>((job) => job.data.userId, processor);
  const worker = new Worker<WebhookJob, WebhookOutcome>(WEBHOOK_QUEUE, fairProcessor, {
    connection,
    prefix: bullPrefix(keys),
    concurrency,
    removeOnComplete: { count: 0 },
  });
  worker.on('error', (err) => logger.error({ err: err.message }, 'webhook worker error'));
  worker.on('completed', (_job, outcome) => deps.observer?.attempted(outcome));
  worker.on('failed', (job, err) => {
    deps.observer?.attempted('failed');
    logger.info(
      {
        jobId: job?.id,
        webhookId: job?.data.webhookId,
        attempts: job?.attemptsMade,
        err: err.message,
      },
      'webhook delivery failed',
    );
  });
  return {
    async close() {
      // Redis away: at once (see closeRedisClient); the webhook worker's close hung on Sentinel.
      await worker.close(!(await redisAnswers(connection)));
      await closeRedisClient(connection);
    },
  };
}
