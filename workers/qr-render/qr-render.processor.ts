import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../../src/shared/infra/logger';
import { QrCode, type QrCodeRecord } from '../../src/qr-codes/qr-code.model';
import {
  qrRenderContent,
  type QrRenderContent,
  type QrRenderJob,
} from '../../src/qr-codes/qr-codes.jobs';
import { parseRgb, type Rgb } from '../../src/qr-codes/qr-colors';
import { deleteImages, deleteImagesBefore } from '../../src/qr-codes/qr-images';
import { LogoError } from '../../src/qr-codes/logo/logo-errors';
import { loadLogo, type LogoOptions } from '../../src/qr-codes/logo/logo-source';
import { RenderFailure, type RenderPool } from './render-pool';
import { createRenderStore } from './render-store';
import type { WebhookEvents } from '../../src/webhooks/webhooks.jobs';
import type { Invalidator, Sharer } from '../../src/shared/cache/shared-cache';
import { qrImageKey } from '../../src/qr-codes/qr-image-cache';
import type { StoredImage } from '../../src/qr-codes/qr-images';

export interface QrRenderProcessorDeps {
  pool: RenderPool;
  logo: LogoOptions;
  logger: Logger;
  /** The public routes' cache of codes by alias: told when a code leaves `pending`. */
  lookups: Invalidator;
  /** The APIs' cache of served images: handed each image of a render that turned ready. */
  images?: Sharer<StoredImage>;
  events?: WebhookEvents;
}

/** `stale`: the version is no longer one to render (replaced, deleted, or failed by another run). */
export type QrRenderOutcome = 'ready' | 'stale' | 'already-ready';

/** Failures that will recur on every attempt: bad logos, payloads that cannot render or decode. */
function isPermanent(err: unknown): boolean {
  return (err instanceof LogoError && err.permanent) || err instanceof RenderFailure;
}

/** What the owner reads in `details.reason`: our own messages only, never an internal error's. */
function reasonOf(err: unknown, attempts: number): string {
  if (err instanceof LogoError || err instanceof RenderFailure) return err.message;
  return `rendering failed ${attempts} times; update the QR code to try again`;
}

function colour(value: string): Rgb {
  const rgb = parseRgb(value);
  if (!rgb) throw new RenderFailure(`stored colour ${value} is not rgb(r,g,b)`);
  return rgb;
}

async function render(qr: QrRenderContent, deps: QrRenderProcessorDeps) {
  const logo = qr.logo ? await loadLogo(qr.logo, deps.logo) : undefined;
  return deps.pool.render({
    payload: qr.payload,
    size: qr.size,
    foreground: colour(qr.foreground),
    background: colour(qr.background),
    logo,
    style: qr.style ?? null,
  });
}

/** A job queued by an older API (ids only): its content read from the document, if still current. */
async function readContent(
  qrId: number,
  renderVersion: number,
): Promise<QrRenderContent | 'stale' | 'already-ready'> {
  const qr = await QrCode.collection.findOne<QrCodeRecord>({ id: qrId });
  if (!qr || qr.renderVersion !== renderVersion || qr.status === 'failed') return 'stale';
  if (qr.status === 'ready') return 'already-ready';
  return qrRenderContent(qr);
}

/**
 * The version was no longer pending when its render ended. Ready: a duplicate or retried job
 * of it got there first, and the images both wrote are the ones served. Otherwise (updated,
 * deleted, or failed by another run) nothing serves what was just written.
 */
async function settleUnmarked(qrId: number, renderVersion: number) {
  const qr = await QrCode.collection.findOne<Pick<QrCodeRecord, 'renderVersion' | 'status'>>(
    { id: qrId },
    { projection: { _id: 0, renderVersion: 1, status: 1 } },
  );
  if (qr?.renderVersion === renderVersion && qr.status === 'ready') return 'already-ready';
  await deleteImages(qrId, renderVersion);
  return 'stale';
}

/**
 * Renders one version of one QR code. Idempotent: images are stored once under (id, version,
 * format), and a version's content never changes; only a `pending` document still at
 * this job's version turns `ready` (or `failed`), so a retried, duplicated or late job can
 * never overwrite a newer render, nor announce a version twice.
 */
export function createQrRenderProcessor(deps: QrRenderProcessorDeps) {
  // Renders ending together are stored and marked ready in shared writes.
  const finish = createRenderStore(deps.pool);
  return async (job: Job<QrRenderJob>): Promise<QrRenderOutcome> => {
    const { qrId, renderVersion } = job.data;
    const qr = job.data.content ?? (await readContent(qrId, renderVersion));
    if (typeof qr === 'string') return qr;
    try {
      const { png, svg, logo } = await render(qr, deps);
      const { stored, marked } = await finish({
        qrId,
        renderVersion,
        images: logo ? { png, svg, logo } : { png, svg },
      });
      if (!marked) return await settleUnmarked(qrId, renderVersion);
      // Before the announcement, on the same connection: a request it wakes finds the image.
      await Promise.all(
        stored.map((image) =>
          image.format === 'logo'
            ? undefined
            : deps.images?.share(qrImageKey(qrId, renderVersion, image.format), image),
        ),
      );
      await deps.lookups.invalidate([qr.alias]);
      // A first render has no older images to remove.
      if (renderVersion > 1) await deleteImagesBefore(qrId, renderVersion);
      await deps.events?.emit(qr.userId, 'qr.ready', { id: qrId, alias: qr.alias, name: qr.name });
      return 'ready';
    } catch (err) {
      const attempts = job.opts.attempts ?? 1;
      const permanent = isPermanent(err);
      if (permanent || job.attemptsMade + 1 >= attempts) {
        const reason = reasonOf(err, job.attemptsMade + 1);
        deps.logger.warn({ err, qrId, renderVersion, reason }, 'qr render failed');
        const marked = await QrCode.updateOne(
          { id: qrId, renderVersion, status: 'pending' },
          { $set: { status: 'failed', failureReason: reason } },
        );
        if (marked.matchedCount > 0) {
          await deps.lookups.invalidate([qr.alias]);
          const data = { id: qrId, alias: qr.alias, name: qr.name, reason };
          await deps.events?.emit(qr.userId, 'qr.failed', data);
        }
        if (permanent) throw new UnrecoverableError(reason);
      }
      throw err;
    }
  };
}
