import { etagOf, type StoredImage } from './qr-images';
import { QrImage } from './qr-image.model';
import { isOnlyDuplicateKeys } from '../shared/db/duplicate-key';

/** Every format an image URL serves: the two the worker stores, and the print formats. */
export const IMAGE_FORMATS = ['png', 'svg', 'pdf', 'eps'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const VARIANT_TYPES: Record<ImageFormat, string> = {
  png: 'image/png',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  eps: 'application/postscript',
};

/** Images drawn on request and kept, per render version: a bound on what one code can store. */
export const MAX_STORED_VARIANTS = 8;

/** PDF and EPS are the code's `size` in pixels at 96 dpi (512 px: 135.5 mm). */
export const POINTS_PER_PIXEL = 0.75;

export interface VariantAsk {
  format: ImageFormat;
  size?: number | undefined;
  cmyk?: boolean | undefined;
  bleedMm?: number | undefined;
}

/** Only the ask's own fields, unset ones left out: what a job carries and its id names. */
export function plainAsk(ask: VariantAsk): VariantAsk {
  const plain: VariantAsk = { format: ask.format };
  if (ask.size !== undefined) plain.size = ask.size;
  if (ask.cmyk) plain.cmyk = true;
  if (ask.bleedMm) plain.bleedMm = ask.bleedMm;
  return plain;
}

/** The stored format name of a variant, e.g. `png@1024` or `pdf@cmyk,bleed=3`. */
export function variantKey(ask: VariantAsk): string {
  const parts: string[] = [];
  if (ask.size !== undefined) parts.push(String(ask.size));
  if (ask.cmyk) parts.push('cmyk');
  if (ask.bleedMm) parts.push(`bleed=${ask.bleedMm}`);
  return `${ask.format}@${parts.join(',')}`;
}

/** The key of a variant in the APIs' image cache (beside `qrImageKey`'s stored formats). */
export function variantCacheKey(qrId: number, renderVersion: number, ask: VariantAsk): string {
  return `${qrId}:${renderVersion}:${variantKey(ask)}`;
}

/**
 * Keeps a variant the worker has drawn: at most `MAX_STORED_VARIANTS` per render version, the
 * oldest giving way, so that every variant asked for is stored for the API to serve while a
 * printer's repeated downloads of the same few draw each once.
 */
export async function storeVariant(
  qrId: number,
  renderVersion: number,
  ask: VariantAsk,
  bytes: Buffer,
): Promise<StoredImage> {
  const image = { contentType: VARIANT_TYPES[ask.format], etag: etagOf(bytes), bytes };
  const doc = {
    qrId,
    renderVersion,
    format: variantKey(ask),
    ...image,
    createdAt: new Date(),
  };
  await QrImage.collection.insertOne(doc).catch((err: unknown) => {
    if (!isOnlyDuplicateKeys(err)) throw err;
  });
  const kept = await QrImage.collection
    .find({ qrId, renderVersion, format: /@/ }, { projection: { _id: 1 } })
    .sort({ createdAt: -1, _id: -1 })
    .skip(MAX_STORED_VARIANTS)
    .toArray();
  if (kept.length) await QrImage.collection.deleteMany({ _id: { $in: kept.map((d) => d._id) } });
  return image;
}
