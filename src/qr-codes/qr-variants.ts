import sharp from 'sharp';
import { validation } from '../shared/errors/app-error';
import type { QrCodeRecord } from './qr-code.model';
import { readsAs } from './design/decode';
import { buildDesign, type Design } from './design/design';
import { qrMatrix } from './design/matrix';
import { designEps } from './design/eps';
import { designPdf } from './design/pdf';
import { errorCorrectionOf, type QrStyle } from './design/style';
import { designSvg } from './design/svg';
import { MIN_MODULE_PIXELS } from './qr-symbol';
import { parseRgb } from './qr-colors';
import { etagOf, findImage, type StoredImage } from './qr-images';
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

/** The stored format name of a variant, e.g. `png@1024` or `pdf@cmyk,bleed=3`. */
export function variantKey(ask: VariantAsk): string {
  const parts: string[] = [];
  if (ask.size !== undefined) parts.push(String(ask.size));
  if (ask.cmyk) parts.push('cmyk');
  if (ask.bleedMm) parts.push(`bleed=${ask.bleedMm}`);
  return `${ask.format}@${parts.join(',')}`;
}

function designOf(qr: QrCodeRecord): Design {
  const style = (qr.style as QrStyle | null) ?? null;
  const hasLogo = Boolean(qr.logo);
  // The worker's own call: the same payload and level always give the same matrix and mask.
  const matrix = qrMatrix(qr.payload, errorCorrectionOf(style, hasLogo));
  if (!matrix) throw validation('the QR code no longer fits its payload');
  return buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style,
    foreground: parseRgb(qr.foreground) ?? { r: 0, g: 0, b: 0 },
    background: parseRgb(qr.background) ?? { r: 255, g: 255, b: 255 },
    hasLogo,
  });
}

async function draw(qr: QrCodeRecord, ask: VariantAsk): Promise<Buffer> {
  const design = designOf(qr);
  const logo = qr.logo
    ? ((await findImage(qr.id, qr.renderVersion, 'logo'))?.bytes ?? undefined)
    : undefined;
  if (ask.format === 'png') {
    const size = ask.size ?? qr.size;
    if (size / design.width < MIN_MODULE_PIXELS) {
      throw validation(
        `size ${size} px is too small for this code: at least ${Math.ceil(design.width * MIN_MODULE_PIXELS)} px is needed`,
      );
    }
    const svg = Buffer.from(designSvg(design, size, logo));
    const png = await sharp(svg).flatten({ background: design.background }).png().toBuffer();
    // Proven like every render: a size no decoder reads is never served.
    const problem = await readsAs(png, qr.payload, design.width);
    if (problem) throw validation(`${problem} at ${size} px`, 'size');
    return png;
  }
  const options = {
    widthPt: qr.size * POINTS_PER_PIXEL,
    cmyk: ask.cmyk,
    bleedMm: ask.bleedMm,
    logoPng: logo,
    date: qr.renderedAt ?? qr.updatedAt,
  };
  return ask.format === 'pdf' ? designPdf(design, options) : designEps(design, options);
}

/**
 * A ready code's image in a format or size the worker did not store: drawn from its design here
 * (vector formats cost little; a PNG size is rasterised and proven), then kept in MongoDB, up to
 * `MAX_STORED_VARIANTS` per render version, so a printer's repeated downloads draw it once.
 */
export async function variantImage(qr: QrCodeRecord, ask: VariantAsk): Promise<StoredImage> {
  const key = variantKey(ask);
  const stored = await findImage(qr.id, qr.renderVersion, key);
  if (stored) return stored;
  const bytes = await draw(qr, ask);
  const image = { contentType: VARIANT_TYPES[ask.format], etag: etagOf(bytes), bytes };
  const kept = await QrImage.collection.countDocuments({
    qrId: qr.id,
    renderVersion: qr.renderVersion,
    format: /@/,
  });
  if (kept < MAX_STORED_VARIANTS) {
    const doc = {
      qrId: qr.id,
      renderVersion: qr.renderVersion,
      format: key,
      ...image,
      createdAt: new Date(),
    };
    await QrImage.collection.insertOne(doc).catch((err: unknown) => {
      if (!isOnlyDuplicateKeys(err)) throw err;
    });
  }
  return image;
}
