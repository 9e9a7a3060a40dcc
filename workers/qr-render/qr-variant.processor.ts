import { UnrecoverableError, type Job } from 'bullmq';
import { QrCode, type QrCodeRecord } from '../../src/qr-codes/qr-code.model';
import { VARIANT_REFUSED, type QrVariantJob } from '../../src/qr-codes/qr-codes.jobs';
import { findImage } from '../../src/qr-codes/qr-images';
import { storeVariant, variantKey } from '../../src/qr-codes/qr-variants';
import type { QrStyle } from '../../src/qr-codes/design/style';
import { RenderFailure, type RenderPool } from './render-pool';

export interface QrVariantProcessorDeps {
  pool: RenderPool;
}

/** `stale`: the version asked for is no longer the code's ready one; nothing is drawn. */
export type QrVariantOutcome = 'drawn' | 'stored-already' | 'stale';

/**
 * Draws one variant of one ready render version and stores it (`storeVariant`). Idempotent: a
 * variant already stored is left alone. A drawing that would not scan is refused for good
 * (UnrecoverableError: the job stays failed with the reason, which the API answers with a 422).
 */
export function createQrVariantProcessor(deps: QrVariantProcessorDeps) {
  return async (job: Job<QrVariantJob>): Promise<QrVariantOutcome> => {
    const { qrId, renderVersion, ask } = job.data;
    const key = variantKey(ask);
    if (await findImage(qrId, renderVersion, key)) return 'stored-already';
    const qr = await QrCode.collection.findOne<QrCodeRecord>({ id: qrId });
    if (!qr || qr.renderVersion !== renderVersion || qr.status !== 'ready') return 'stale';
    const logo = qr.logo ? await findImage(qrId, renderVersion, 'logo') : null;
    let bytes: Buffer;
    try {
      bytes = await deps.pool.variant({
        payload: qr.payload,
        size: qr.size,
        foreground: qr.foreground,
        background: qr.background,
        style: (qr.style as QrStyle | null | undefined) ?? null,
        logo: logo?.bytes,
        date: (qr.renderedAt ?? qr.updatedAt).getTime(),
        ask,
      });
    } catch (err) {
      if (err instanceof RenderFailure) throw new UnrecoverableError(VARIANT_REFUSED + err.message);
      throw err;
    }
    await storeVariant(qrId, renderVersion, ask, bytes);
    return 'drawn';
  };
}
