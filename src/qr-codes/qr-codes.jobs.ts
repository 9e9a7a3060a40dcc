import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../shared/infra/logger';
import type { RedisKeys } from '../shared/infra/redis-keys';

/** The render job contract, shared by the API (producer) and `workers/` (consumer). */
export const QR_RENDER_QUEUE = 'qr-render';

/** Ids only: the worker reads the current document, so a job never renders stale content. */
export interface QrRenderJob {
  qrId: number;
  renderVersion: number;
}

export const QR_RENDER_ATTEMPTS = 5;

export const qrRenderJobOptions: JobsOptions = {
  attempts: QR_RENDER_ATTEMPTS,
  // 1 s, 2 s, 4 s, 8 s: rides out a slow logo host or a MongoDB failover, then gives up.
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
};

/** BullMQ's key prefix, under the service's own, so deployments and test runs never collide. */
export function bullPrefix(keys: RedisKeys): string {
  return keys.key('bull');
}

/** One job id per render version: queueing the same version twice while it waits adds nothing. */
export function qrRenderJobId({ qrId, renderVersion }: QrRenderJob): string {
  return `qr-${qrId}-v${renderVersion}`;
}

/** Job states reported as queue depth in the metrics. */
export const QR_QUEUE_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed'] as const;

export interface QrRenderQueue {
  enqueue(job: QrRenderJob): Promise<void>;
  /** How many jobs are in each state (for the metrics). */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/**
 * The producer side. Give it the request-path connection (offline queue disabled), so that with
 * Redis down `enqueue` fails at once and the API answers 503 instead of hanging.
 */
export function createQrRenderQueue(options: {
  connection: Redis;
  keys: RedisKeys;
  logger: Logger;
}): QrRenderQueue {
  const queue = new Queue<QrRenderJob>(QR_RENDER_QUEUE, {
    connection: options.connection,
    prefix: bullPrefix(options.keys),
    defaultJobOptions: qrRenderJobOptions,
  });
  queue.on('error', (err) => options.logger.warn({ err: err.message }, 'qr render queue error'));
  return {
    async enqueue(job) {
      await queue.add('render', job, { jobId: qrRenderJobId(job) });
    },
    counts: () => queue.getJobCounts(...QR_QUEUE_STATES),
    close: () => queue.close(),
  };
}
