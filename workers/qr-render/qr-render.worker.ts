import { availableParallelism } from 'node:os';
import { Worker } from 'bullmq';
import type { Config } from '../../src/config';
import type { Logger } from '../../src/shared/infra/logger';
import {
  closeRedisClient,
  createRedisClient,
  redisAnswers,
} from '../../src/shared/infra/redis-connections';
import type { RedisKeys } from '../../src/shared/infra/redis-keys';
import { QrCode } from '../../src/qr-codes/qr-code.model';
import {
  bullPrefix,
  createQrRenderQueue,
  QR_RENDER_QUEUE,
  QR_VARIANT_QUEUE,
  qrFairShare,
  qrJobOwner,
  qrRenderJobFor,
  type QrRenderJob,
  type QrRenderQueue,
  type QrVariantJob,
} from '../../src/qr-codes/qr-codes.jobs';
import { variantCacheKey } from '../../src/qr-codes/qr-variants';
import { createQrRenderProcessor, type QrRenderOutcome } from './qr-render.processor';
import { createQrVariantProcessor, type QrVariantOutcome } from './qr-variant.processor';
import { createRenderPool } from './render-pool';
import { qrLookupCacheFor } from '../../src/qr-codes/qr-lookup-cache';
import { qrImageCacheFor } from '../../src/qr-codes/qr-image-cache';
import type { WebhookEvents } from '../../src/webhooks/webhooks.jobs';
import type { Invalidator } from '../../src/shared/cache/shared-cache';

/** What the worker reports about each render (the worker's metrics). */
export interface QrRenderObserver {
  completed(outcome: QrRenderOutcome, seconds: number): void;
  /** `final`: no retry follows (the code is marked failed). */
  failed(final: boolean): void;
}

export interface QrRenderWorkerDeps {
  config: Config;
  logger: Logger;
  keys: RedisKeys;
  observer?: QrRenderObserver;
  /** Tells the owner's webhooks `qr.ready` / `qr.failed`; absent: no events. */
  events?: WebhookEvents;
}

export interface QrRenderWorkerOptions {
  /** Jobs in flight at once; defaults to QR_CONCURRENCY. */
  concurrency?: number;
  /** How long a job's lock lives without renewal; a dead worker's job is re-run after it. */
  lockDuration?: number;
  /** How often this worker looks for jobs whose worker died. */
  stalledInterval?: number;
  /** How often, and for codes pending how long, to re-queue renders Redis never received. */
  sweepIntervalMs?: number;
  sweepAgeMs?: number;
  /** A logo download's overall time-out (LOGO_TIMEOUT_MS unless set). */
  logoTimeoutMs?: number;
}

export interface QrRenderWorker {
  /** Settles once the render threads have done their warm-up renders (see render-thread.ts). */
  readonly warm: Promise<void>;
  /** Re-queues renders of codes left pending (their job was never queued); returns how many. */
  sweep(): Promise<number>;
  /** False once closed or stopped by a fatal error (the health check). */
  isRunning(): boolean;
  close(): Promise<void>;
}

/**
 * Threads for a number of jobs in flight: no more than the cores (more would only queue for the
 * CPU), the jobs shared out among them.
 */
export function renderThreads(concurrency: number): [threads: number, perThread: number] {
  const threads = Math.max(1, Math.min(concurrency, availableParallelism()));
  return [threads, Math.ceil(concurrency / threads)];
}

/** Pending codes older than the age whose job may have been lost, oldest first. */
async function sweepPending(queue: QrRenderQueue, ageMs: number): Promise<number> {
  const stale = await QrCode.find({
    status: 'pending',
    updatedAt: { $lt: new Date(Date.now() - ageMs) },
  })
    .sort({ updatedAt: 1 })
    .limit(100)
    .lean();
  // Job ids are per render version: a job still waiting, active or retrying is not added twice.
  for (const qr of stale) await queue.enqueue(qrRenderJobFor(qr));
  return stale.length;
}

/**
 * Consumes variant jobs (another PNG size, PDF, EPS of a ready code) on the render threads. When
 * one ends, drawn or refused, its key is dropped from the APIs' image cache: that wakes the
 * requests waiting for it, which then read the stored variant or the job's refusal.
 */
function startVariantWorker(
  connection: ReturnType<typeof createRedisClient>,
  pool: ReturnType<typeof createRenderPool>,
  images: Invalidator,
  deps: QrRenderWorkerDeps,
  concurrency: number,
  options: QrRenderWorkerOptions,
) {
  const worker = new Worker<QrVariantJob, QrVariantOutcome>(
    QR_VARIANT_QUEUE,
    createQrVariantProcessor({ pool }),
    {
      connection,
      prefix: bullPrefix(deps.keys),
      concurrency,
      lockDuration: options.lockDuration ?? 30_000,
      stalledInterval: options.stalledInterval ?? 30_000,
      removeOnComplete: { count: 0 },
    },
  );
  const ended = (job: { data: QrVariantJob } | undefined) => {
    if (!job) return;
    const { qrId, renderVersion, ask } = job.data;
    images.invalidate([variantCacheKey(qrId, renderVersion, ask)]).catch((err: unknown) => {
      deps.logger.warn({ err: (err as Error).message, qrId }, 'variant wake-up not sent');
    });
  };
  worker.on('error', (err) => deps.logger.error({ err: err.message }, 'qr variant worker error'));
  worker.on('failed', (job, err) => {
    deps.logger.warn({ jobId: job?.id, err: err.message }, 'qr variant job failed');
    ended(job);
  });
  worker.on('completed', ended);
  return worker;
}

/**
 * Consumes QR render jobs. Rendering runs in a pool of threads, so this event loop stays free
 * to renew job locks and talk to Redis and MongoDB; BullMQ's stalled-job check re-runs any job
 * whose worker died.
 */
export function startQrRenderWorker(
  deps: QrRenderWorkerDeps,
  options: QrRenderWorkerOptions = {},
): QrRenderWorker {
  const { config, logger, keys } = deps;
  // A connection of its own (BullMQ adds a blocking one): another component may block on a
  // shared one, and a worker connection must never cut a blocking command short.
  const connection = createRedisClient(config.redis, 'blocking');
  connection.on('error', (err: Error) =>
    logger.warn({ err: err.message }, 'qr worker redis error'),
  );
  const concurrency = options.concurrency ?? config.qrConcurrency;
  const pool = createRenderPool(...renderThreads(concurrency), config.qrWarmUpRenders);
  const images = qrImageCacheFor({ redis: connection, keys, logger });
  const processor = createQrRenderProcessor({
    pool,
    logo: {
      logoDir: config.logoDir,
      allowPrivate: config.logoAllowPrivate,
      timeoutMs: options.logoTimeoutMs,
    },
    logger,
    lookups: qrLookupCacheFor({ redis: connection, keys, logger }),
    images,
    events: deps.events,
  });
  const worker = new Worker<QrRenderJob, QrRenderOutcome>(QR_RENDER_QUEUE, processor, {
    connection,
    prefix: bullPrefix(keys),
    concurrency,
    lockDuration: options.lockDuration ?? 30_000,
    stalledInterval: options.stalledInterval ?? 30_000,
    removeOnComplete: { count: 0 },
  });
  worker.on('error', (err) => logger.error({ err: err.message }, 'qr render worker error'));
  // Renders are taken round-robin by user (their priorities); each ends its rank here (M7).
  const stopFair = qrFairShare(connection, keys).attach(worker, (job) => qrJobOwner(job.data));
  worker.on('failed', (job, err) => {
    logger.warn({ jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'qr job failed');
    const exhausted = (job?.attemptsMade ?? 0) >= (job?.opts.attempts ?? 1);
    deps.observer?.failed(exhausted || err.name === 'UnrecoverableError');
  });
  worker.on('completed', (job, outcome) => {
    const ms = job.processedOn && job.finishedOn ? job.finishedOn - job.processedOn : 0;
    deps.observer?.completed(outcome, Math.max(0, ms) / 1000);
  });

  const variants = startVariantWorker(connection, pool, images, deps, concurrency, options);

  const queue = createQrRenderQueue({ connection, keys, logger });
  const ageMs = options.sweepAgeMs ?? 60_000;
  const sweep = () => sweepPending(queue, ageMs);
  const runSweep = () =>
    sweep().catch((err: unknown) =>
      logger.warn({ err: (err as Error).message }, 'qr render sweep failed'),
    );
  // Fire and forget: runSweep logs its own failure, so its promise never rejects.
  void runSweep();
  const timer = setInterval(() => void runSweep(), options.sweepIntervalMs ?? 60_000);
  timer.unref();

  return {
    warm: pool.warm,
    sweep,
    isRunning: () => worker.isRunning(),
    async close() {
      clearInterval(timer);
      stopFair();
      // Redis away: at once (see closeRedisClient), or the close waits for ever on Sentinel.
      const force = !(await redisAnswers(connection));
      await Promise.all([worker.close(force), variants.close(force)]);
      await queue.close();
      await pool.close();
      await closeRedisClient(connection);
    },
  };
}
