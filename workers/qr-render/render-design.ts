import {
  BinaryBitmap,
  DecodeHintType,
  HybridBinarizer,
  QRCodeReader,
  RGBLuminanceSource,
} from '@zxing/library';
import jsQR from 'jsqr';
import sharp from 'sharp';
import { LOGO_MAX_PIXELS } from '../../src/qr-codes/logo/logo-source';
import { buildDesign, type Design } from '../../src/qr-codes/design/design';
import { qrMatrix } from '../../src/qr-codes/design/matrix';
import { errorCorrectionOf } from '../../src/qr-codes/design/style';
import { designSvg } from '../../src/qr-codes/design/svg';
import { MIN_MODULE_PIXELS } from '../../src/qr-codes/qr-symbol';
import type { Rgb } from '../../src/qr-codes/qr-colors';
import type { RenderInput, RenderOutput } from './render-qr';
import { RenderError } from './render-errors';
import { UnreadableImageError } from './verify-png';

/** The decoders read the image box-averaged to about this many pixels per module first. */
const PROOF_PIXELS_PER_MODULE = 4;

/** The logo fitted to its box at this pixel scale, flattened onto the background, as PNG. */
async function fitLogo(logo: Uint8Array, pixels: number, background: Rgb): Promise<Buffer> {
  return sharp(logo, { limitInputPixels: LOGO_MAX_PIXELS })
    .rotate()
    .resize(pixels, pixels, { fit: 'contain', background: { ...background, alpha: 1 } })
    .flatten({ background })
    .png()
    .toBuffer()
    .catch(() => {
      throw new RenderError('logo image data is corrupt');
    });
}

/** Grey pixels (jsQR's weights), box-averaged by a whole factor. */
function greyShrunk(rgb: Buffer, width: number, height: number, f: number) {
  const w = Math.floor(width / f);
  const h = Math.floor(height / f);
  const grey = new Uint8ClampedArray(w * h);
  const divisor = f * f * 10000;
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      let sum = 0;
      for (let dy = 0; dy < f; dy += 1) {
        let i = ((y * f + dy) * width + x * f) * 3;
        for (let dx = 0; dx < f; dx += 1, i += 3) {
          sum +=
            2126 * (rgb[i] as number) +
            7152 * (rgb[i + 1] as number) +
            722 * (rgb[i + 2] as number);
        }
      }
      grey[y * w + x] = sum / divisor;
    }
  }
  return { grey, width: w, height: h };
}

const ZXING_HINTS = new Map<DecodeHintType, unknown>([
  [DecodeHintType.TRY_HARDER, true],
  [DecodeHintType.CHARACTER_SET, 'UTF-8'],
]);

export function readWithZxing(grey: Uint8ClampedArray, width: number, height: number) {
  try {
    const bitmap = new BinaryBitmap(
      new HybridBinarizer(new RGBLuminanceSource(grey, width, height)),
    );
    return new QRCodeReader().decode(bitmap, ZXING_HINTS).getText();
  } catch {
    return null;
  }
}

export function readWithJsqr(grey: Uint8ClampedArray, width: number, height: number) {
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < grey.length; i += 1) {
    rgba[i * 4] = rgba[i * 4 + 1] = rgba[i * 4 + 2] = grey[i] as number;
    rgba[i * 4 + 3] = 255;
  }
  const result = jsQR(rgba, width, height, { inversionAttempts: 'dontInvert' });
  return result ? Buffer.from(result.binaryData).toString('utf8') : null;
}

/**
 * The proof for a styled code: the PNG's own bytes decoded (by libvips) and read by ZXing, then by
 * jsQR where ZXing fails; each at about four pixels per module (what a phone's camera sees of a
 * printed code), then at full size. The text read must be the payload.
 */
export async function proveDesignPng(png: Buffer, payload: string, design: Design): Promise<void> {
  const { data, info } = await sharp(png)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch(() => {
      throw new UnreadableImageError('rendered image is not a readable PNG');
    });
  const perModule = info.width / design.width;
  const factors = [...new Set([Math.floor(perModule / PROOF_PIXELS_PER_MODULE), 1])].filter(
    (f) => f >= 1,
  );
  let read: string | null = null;
  for (const f of factors) {
    const image =
      f === 1
        ? greyShrunk(data, info.width, info.height, 1)
        : greyShrunk(data, info.width, info.height, f);
    read = readWithZxing(image.grey, image.width, image.height);
    if (read === null) read = readWithJsqr(image.grey, image.width, image.height);
    if (read !== null) break;
  }
  if (read === null) throw new UnreadableImageError('rendered image does not decode as a QR code');
  if (read !== payload) {
    throw new UnreadableImageError('rendered image decodes to a different payload');
  }
}

/**
 * A styled code: the module matrix laid out as the style's vector shapes (the SVG master), the
 * PNG its raster by libvips/librsvg, proven to read back as the payload.
 */
export async function renderDesign(input: RenderInput): Promise<RenderOutput> {
  const hasLogo = input.logo !== undefined;
  const matrix = qrMatrix(input.payload, errorCorrectionOf(input.style, hasLogo));
  if (!matrix) throw new RenderError('payload does not fit in a QR code');
  const design = buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style: input.style,
    foreground: input.foreground,
    background: input.background,
    hasLogo,
  });
  const perModule = input.size / design.width;
  if (perModule < MIN_MODULE_PIXELS) {
    throw new RenderError(`${input.size} px is too small for this much data: use a larger size`);
  }
  const logo =
    input.logo && design.logo
      ? await fitLogo(input.logo, Math.round(design.logo.size * perModule), input.background)
      : undefined;
  const svg = Buffer.from(designSvg(design, input.size, logo));
  const png = await sharp(svg)
    .flatten({ background: input.background })
    .png()
    .toBuffer()
    .catch(() => {
      throw new RenderError('the design could not be rasterised');
    });
  if (input.verify !== false) await proveDesignPng(png, input.payload, design);
  return { png, svg, logo };
}
