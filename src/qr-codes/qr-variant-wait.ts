import type { Response } from 'express';
import { validation } from '../shared/errors/app-error';
import type { Logger } from '../shared/infra/logger';
import type { QrCodeRecord } from './qr-code.model';
import type { QrRenderQueue } from './qr-codes.jobs';
import type { QrImageCache } from './qr-image-cache';
import { findImage, type StoredImage } from './qr-images';
import { PENDING_TTL_MS } from './qr-lookup-cache';
import { plainAsk, variantCacheKey, variantKey, type VariantAsk } from './qr-variants';
import { waitForChange } from './qr-wait';

export interface VariantWaitDeps {
  queue: QrRenderQueue;
  images: QrImageCache;
  logger: Logger;
  /** How long a request waits for the worker's drawing before it is told to come back. */
  waitMs: number;
}

/**
 * A ready code's variant (see `QR_VARIANT_QUEUE`): the stored one, or the worker's drawing of it,
 * waited for as an image is waited for while its code renders (up to `waitMs`; the worker drops
 * the variant's key from the image cache when it has stored or refused it, which wakes the wait).
 * Null when it is still being drawn once the wait runs out (the caller answers pending); a
 * variant the worker refused is a 422 naming why.
 */
export async function awaitVariant(
  deps: VariantWaitDeps,
  qr: Pick<QrCodeRecord, 'id' | 'renderVersion'>,
  asked: VariantAsk,
  res?: Response,
): Promise<StoredImage | null> {
  const ask = plainAsk(asked);
  const key = variantCacheKey(qr.id, qr.renderVersion, ask);
  const load = () => findImage(qr.id, qr.renderVersion, variantKey(ask));
  const deadline = Date.now() + deps.waitMs;
  for (;;) {
    // Watching before reading: no drawing's end can fall between the read and the wait.
    const watch = deps.images.watch(key);
    const image = await deps.images.get(key, load);
    if (image) {
      watch?.cancel();
      return image;
    }
    let state;
    try {
      state = await deps.queue.requestVariant({
        qrId: qr.id,
        renderVersion: qr.renderVersion,
        ask,
      });
    } catch (err) {
      // Redis is down: no worker could draw it now either. Pending, as a render would be.
      deps.logger.warn({ err: (err as Error).message, qrId: qr.id }, 'variant job not queued');
      watch?.cancel();
      return null;
    }
    if (state.state === 'refused') {
      watch?.cancel();
      throw validation(state.reason, ask.size === undefined ? 'format' : 'size');
    }
    const left = deadline - Date.now();
    if (!watch || left <= 0) {
      watch?.cancel();
      return null;
    }
    // Reading again at least this often: a lost message costs no more than a client polling.
    if ((await waitForChange(watch, Math.min(left, PENDING_TTL_MS), res)) === 'hung-up') {
      return null;
    }
  }
}
