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
  const worker = new Worker<WebhookJob, WebhookOutcome>(WEBHOOK_QUEUE, processor, {
    connection,
    prefix: bullPrefix(keys),
    concurrency,
    removeOnComplete: { count: 0 },
  });
  worker.on('error', (err) => logger.error({ err: err.message }, 'webhook worker error'));
  // Deliveries are taken round-robin by user (their priorities); each ends its rank here (M7).
  const stopFair = webhookFairShare(connection, keys).attach(worker, (job) => job.data.userId);
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
      stopFair();
      // Redis away: at once (see closeRedisClient); the webhook worker's close hung on Sentinel.
      await worker.close(!(await redisAnswers(connection)));
      await closeRedisClient(connection);
    },
  };
}
