import { Queue, type JobsOptions } from 'bullmq';
import { fairShare, type FairShare } from '../shared/infra/fair-share';
import { groupCommit } from '../shared/db/group-commit';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { Logger } from '../shared/infra/logger';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { QrCodeRecord } from './qr-code.model';
import type { QrStyle } from './design/style';
import { variantKey, type VariantAsk } from './qr-variants';

/** The render job contract, shared by the API (producer) and `workers/` (consumer). */
export const QR_RENDER_QUEUE = 'qr-render';

/** What one render version draws, and what its events and cache invalidation name. */
export interface QrRenderContent {
  payload: string;
  size: number;
  foreground: string;
  background: string;
  logo: string | null;
  style?: QrStyle | null;
  alias: string;
  userId: number;
  name: string;
}

/**
 * A version and its content. Every change of the content bumps the version, so the content a job
 * carries is that version's for good and the worker renders it without reading the document; a
 * job of a version that is no longer current is caught when the worker marks it ready. Jobs
 * queued by an older API carry the ids only: the worker then reads the document.
 */
export interface QrRenderJob {
  qrId: number;
  renderVersion: number;
  content?: QrRenderContent;
}

type RenderedFields = 'payload' | 'size' | 'foreground' | 'background' | 'logo' | 'style';
type NamingFields = 'alias' | 'userId' | 'name';

/** A document's content, as its render job carries it. */
export function qrRenderContent(
  qr: Pick<QrCodeRecord, RenderedFields | NamingFields>,
): QrRenderContent {
  return {
    payload: qr.payload,
    size: qr.size,
    foreground: qr.foreground,
    background: qr.background,
    logo: qr.logo ?? null,
    style: (qr.style as QrStyle | null | undefined) ?? null,
    alias: qr.alias,
    userId: qr.userId,
    name: qr.name ?? '',
  };
}

/** The job that renders a code's current version. */
export function qrRenderJobFor(
  qr: Pick<QrCodeRecord, 'id' | 'renderVersion' | RenderedFields | NamingFields>,
): QrRenderJob {
  return { qrId: qr.id, renderVersion: qr.renderVersion, content: qrRenderContent(qr) };
}

export const QR_RENDER_ATTEMPTS = 5;

export const qrRenderJobOptions: JobsOptions = {
  attempts: QR_RENDER_ATTEMPTS,
  // 1 s, 2 s, 4 s, 8 s: rides out a slow logo host or a MongoDB failover, then gives up.
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
};

/**
 * BullMQ's key prefix, under the service's own, so deployments and test runs never collide.
 * Hash-tagged: BullMQ's scripts touch several keys of a queue, which a cluster needs in one slot.
 */
export function bullPrefix(keys: RedisKeys): string {
  return keys.slotted('bull');
}

/** One job id per render version: queueing the same version twice while it waits adds nothing. */
export function qrRenderJobId({ qrId, renderVersion }: QrRenderJob): string {
  return `qr-${qrId}-v${renderVersion}`;
}

/**
 * How the variant worker marks a drawing it refuses (a size no decoder reads), so the API can
 * tell that failure, kept and answered 422, from any other a job can end with.
 */
export const VARIANT_REFUSED = 'refused: ';

/** The reason of a refused variant, or undefined when the job failed for another cause. */
export function refusalOf(failedReason: string | undefined): string | undefined {
  return failedReason?.startsWith(VARIANT_REFUSED)
    ? failedReason.slice(VARIANT_REFUSED.length)
    : undefined;
}

/** The per-user fairness of the render queue (see fair-share.ts), for producers and worker. */
export function qrFairShare(redis: RedisClient, keys: RedisKeys, addGraceMs?: number) {
  return fairShare({
    redis,
    keys,
    bullPrefix: bullPrefix(keys),
    queue: QR_RENDER_QUEUE,
    addGraceMs,
  });
}

/** The owner a job names (jobs queued by an older API carry ids only: no fairness for them). */
export const qrJobOwner = (job: QrRenderJob): number | undefined => job.content?.userId;

/** Job states reported as queue depth in the metrics. */
export const QR_QUEUE_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed'] as const;

/**
 * A ready code's image in a size or format the render did not store (a PNG at another size, PDF,
 * EPS): drawn by the worker, like every render, so no API process rasterises or lays out a code.
 */
export const QR_VARIANT_QUEUE = 'qr-variant';

export interface QrVariantJob {
  qrId: number;
  renderVersion: number;
  ask: VariantAsk;
}

/** One job per variant of a version: many requests for the same variant queue one drawing. */
export function qrVariantJobId({ qrId, renderVersion, ask }: QrVariantJob): string {
  return `qrv-${qrId}-v${renderVersion}-${variantKey(ask)}`;
}

export const qrVariantJobOptions: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 200 },
  removeOnComplete: true,
  // A refused variant (it would not scan) stays refused for its version: kept, it is answered
  // without drawing it again.
  removeOnFail: { age: 24 * 3600, count: 1000 },
};

/** Queued (or being drawn), or refused for good with the reason the owner can act on. */
export type QrVariantState = { state: 'queued' } | { state: 'refused'; reason: string };

export interface QrRenderQueue {
  enqueue(job: QrRenderJob): Promise<void>;
  /**
   * Asks the worker for a variant. A variant it refused (a size no decoder reads) is reported, not
   * queued again; one that failed for any other reason (all attempts used) is queued afresh.
   */
  requestVariant(job: QrVariantJob): Promise<QrVariantState>;
  /** How many jobs are in each state (for the metrics). */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/**
 * Each job's priority: a user's n-th waiting render goes after everyone's (n-1)-th (issue 29,
 * M7). One ranking call per owner in the group, its ranks handed out in the jobs' order.
 */
async function rankByOwner(
  fair: FairShare,
  jobs: QrRenderJob[],
): Promise<Array<number | undefined>> {
  // Counted by job id: queueing a version that is already queued counts it once.
  const byOwner = new Map<number, number[]>();
  jobs.forEach((job, i) => {
    const owner = qrJobOwner(job);
    if (owner === undefined) return;
    const indexes = byOwner.get(owner) ?? [];
    indexes.push(i);
    byOwner.set(owner, indexes);
  });
  const priorities: Array<number | undefined> = jobs.map(() => undefined);
  await Promise.all(
    [...byOwner].map(async ([owner, indexes]) => {
      const ranks = await fair.ranks(
        owner,
        indexes.map((index) => qrRenderJobId(jobs[index] as QrRenderJob)),
      );
      indexes.forEach((index, k) => (priorities[index] = ranks[k]));
    }),
  );
  return priorities;
}

/**
 * The producer side. Give it the request-path connection (offline queue disabled), so that with
 * Redis down `enqueue` fails at once and the API answers 503 instead of hanging.
 */
export function createQrRenderQueue(options: {
  connection: RedisClient;
  keys: RedisKeys;
  logger: Logger;
}): QrRenderQueue {
  const queue = new Queue<QrRenderJob>(QR_RENDER_QUEUE, {
    connection: options.connection,
    prefix: bullPrefix(options.keys),
    defaultJobOptions: qrRenderJobOptions,
  });
  queue.on('error', (err) => options.logger.warn({ err: err.message }, 'qr render queue error'));
  const variants = new Queue<QrVariantJob>(QR_VARIANT_QUEUE, {
    connection: options.connection,
    prefix: bullPrefix(options.keys),
    defaultJobOptions: qrVariantJobOptions,
  });
  variants.on('error', (err) =>
    options.logger.warn({ err: err.message }, 'qr variant queue error'),
  );
  // Only the priorities are used here: the in-flight cap is the worker's.
  const fair = qrFairShare(options.connection, options.keys);
  // Renders asked for together (a burst of creates) are ranked per owner and added in one call.
  const enqueue = groupCommit<QrRenderJob, true>(async (jobs) => {
    const priorities = await rankByOwner(fair, jobs);
    await queue.addBulk(
      jobs.map((job, i) => ({
        name: 'render',
        data: job,
        opts: { jobId: qrRenderJobId(job), priority: priorities[i] },
      })),
    );
    return jobs.map(() => true);
  });
  return {
    async enqueue(job) {
      await enqueue(job);
    },
    async requestVariant(job) {
      const jobId = qrVariantJobId(job);
      const known = await variants.getJob(jobId);
      if (known && (await known.getState()) === 'failed') {
        // Only the worker's refusal is kept: a job failed otherwise (stalled past its limit on a
        // busy worker, out of attempts) is drawn again.
        const reason = refusalOf(known.failedReason);
        if (reason !== undefined) return { state: 'refused', reason };
        await known.remove().catch(() => undefined);
      }
      await variants.add('variant', job, { jobId });
      return { state: 'queued' };
    },
    counts: () => queue.getJobCounts(...QR_QUEUE_STATES),
    async close() {
      await Promise.all([queue.close(), variants.close()]);
    },
  };
}
