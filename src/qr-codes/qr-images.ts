import { createHash } from 'node:crypto';
import { mongo } from 'mongoose';
import type { QrFormat } from './qr-code.model';
import { QrImage, type QrImageRecord } from './qr-image.model';

export const CONTENT_TYPES: Record<QrFormat, string> = {
  png: 'image/png',
  svg: 'image/svg+xml',
};

export interface StoredImage {
  contentType: string;
  etag: string;
  bytes: Buffer;
}

/** A strong ETag from the bytes: a re-render to identical bytes keeps clients' caches valid. */
export function etagOf(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/**
 * Writes both formats of one render; upserts, so a retried or duplicated job writes the same.
 * Image documents are read and written with the driver: their fields need no casting, and
 * mongoose's per-operation work measured as much as the driver's own.
 */
export async function saveImages(
  qrId: number,
  renderVersion: number,
  images: Record<QrFormat, Buffer>,
): Promise<void> {
  await QrImage.collection.bulkWrite(
    (Object.entries(images) as Array<[QrFormat, Buffer]>).map(([format, bytes]) => ({
      updateOne: {
        filter: { qrId, renderVersion, format },
        update: {
          $set: { contentType: CONTENT_TYPES[format], etag: etagOf(bytes), bytes },
          $setOnInsert: { createdAt: new Date() },
        },
        upsert: true,
      },
    })),
  );
}

function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof mongo.Binary) return Buffer.from(value.value());
  throw new Error('stored image bytes have an unexpected type');
}

export async function findImage(
  qrId: number,
  renderVersion: number,
  format: QrFormat,
): Promise<StoredImage | null> {
  const doc = await QrImage.collection.findOne<QrImageRecord>({ qrId, renderVersion, format });
  if (!doc) return null;
  return { contentType: doc.contentType, etag: doc.etag, bytes: toBuffer(doc.bytes) };
}

/** Every image of a QR code, or only those of one render version. */
export async function deleteImages(qrId: number, renderVersion?: number): Promise<void> {
  await QrImage.deleteMany(renderVersion === undefined ? { qrId } : { qrId, renderVersion });
}

/** Images of renders older than the one now ready. */
export async function deleteImagesBefore(qrId: number, renderVersion: number): Promise<void> {
  await QrImage.deleteMany({ qrId, renderVersion: { $lt: renderVersion } });
}
