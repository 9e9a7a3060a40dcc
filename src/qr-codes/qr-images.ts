import { createHash } from 'node:crypto';
import { mongo } from 'mongoose';
import type { QrFormat } from './qr-code.model';
import { QrImage, type QrImageRecord } from './qr-image.model';
import { isOnlyDuplicateKeys } from '../shared/db/duplicate-key';

export const CONTENT_TYPES: Record<StoredFormat, string> = {
  png: 'image/png',
  svg: 'image/svg+xml',
  logo: 'image/png',
};

/** What a render stores: the served formats, and the logo as placed (PDF and EPS draw it). */
export type StoredFormat = QrFormat | 'logo';

export interface StoredImage {
  contentType: string;
  etag: string;
  bytes: Buffer;
}

/** A strong ETag from the bytes: a re-render to identical bytes keeps clients' caches valid. */
export function etagOf(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

export type ImageDocument = StoredImage & {
  qrId: number;
  renderVersion: number;
  format: StoredFormat;
  createdAt: Date;
};

/** The documents that store one render's images. */
export function imageDocuments(
  qrId: number,
  renderVersion: number,
  images: Partial<Record<StoredFormat, Buffer>>,
  createdAt: Date,
): ImageDocument[] {
  return (Object.entries(images) as Array<[StoredFormat, Buffer | undefined]>)
    .filter((entry): entry is [StoredFormat, Buffer] => entry[1] !== undefined)
    .map(([format, bytes]) => ({
      qrId,
      renderVersion,
      format,
      contentType: CONTENT_TYPES[format],
      etag: etagOf(bytes),
      bytes,
      createdAt,
    }));
}

/**
 * Writes both formats of one render. A version's content never changes and every render is proven
 * before it is written, so images a retried or duplicated job finds already stored are that
 * version's: inserts, whose duplicate-key refusals mean done (on the embedded engine an upsert
 * pair measured 1.7x the CPU of an insert pair). Image documents are read and written with the
 * driver: their fields need no casting, and mongoose's per-operation work measured as much as the
 * driver's own.
 */
export async function saveImages(
  qrId: number,
  renderVersion: number,
  images: Partial<Record<StoredFormat, Buffer>>,
): Promise<Array<StoredImage & { format: StoredFormat }>> {
  const docs = imageDocuments(qrId, renderVersion, images, new Date());
  try {
    await QrImage.collection.insertMany(docs, { ordered: false });
  } catch (err) {
    if (!isOnlyDuplicateKeys(err)) throw err;
  }
  return docs;
}

function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof mongo.Binary) return Buffer.from(value.value());
  throw new Error('stored image bytes have an unexpected type');
}

export async function findImage(
  qrId: number,
  renderVersion: number,
  /** A stored format, or a variant's key (`png@1024`). */
  format: StoredFormat | string,
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
