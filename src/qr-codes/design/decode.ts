import {
  BinaryBitmap,
  DecodeHintType,
  HybridBinarizer,
  QRCodeReader,
  RGBLuminanceSource,
} from '@zxing/library';
import jsQR from 'jsqr';
import sharp from 'sharp';

/** The decoders read the image box-averaged to about this many pixels per module first. */
const PROOF_PIXELS_PER_MODULE = 4;

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

/** A search for the symbol anywhere in an image. */
const ZXING_HINTS = new Map<DecodeHintType, unknown>([
  [DecodeHintType.TRY_HARDER, true],
  [DecodeHintType.CHARACTER_SET, 'UTF-8'],
]);

/**
 * A module grid (one value per module, a margin of quiet zone, nothing else): ZXing takes the
 * corners and module size from the finder pattern and samples every module, no search.
 */
export const PURE_GRID_HINTS = new Map<DecodeHintType, unknown>([
  [DecodeHintType.PURE_BARCODE, true],
  [DecodeHintType.CHARACTER_SET, 'UTF-8'],
]);

/** ZXing's reading of grey pixels, or null where it reads none. */
export function readWithZxing(
  grey: Uint8ClampedArray,
  width: number,
  height: number,
  hints: Map<DecodeHintType, unknown> = ZXING_HINTS,
) {
  try {
    const bitmap = new BinaryBitmap(
      new HybridBinarizer(new RGBLuminanceSource(grey, width, height)),
    );
    return new QRCodeReader().decode(bitmap, hints).getText();
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
 * Why a PNG does not read as `payload`, or undefined when it does. Its own bytes are decoded (by
 * libvips) and read by ZXing, then by jsQR where ZXing fails; each at about four pixels per module
 * (what a phone's camera sees of a printed code), then at full size.
 */
export async function readsAs(
  png: Buffer,
  payload: string,
  widthInModules: number,
): Promise<string | undefined> {
  let pixels: { data: Buffer; info: sharp.OutputInfo };
  try {
    pixels = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch {
    return 'rendered image is not a readable PNG';
  }
  const { data, info } = pixels;
  const perModule = info.width / widthInModules;
  const factors = [...new Set([Math.floor(perModule / PROOF_PIXELS_PER_MODULE), 1])].filter(
    (f) => f >= 1,
  );
  let read: string | null = null;
  for (const f of factors) {
    const image = greyShrunk(data, info.width, info.height, f);
    read = readWithZxing(image.grey, image.width, image.height);
    if (read === null) read = readWithJsqr(image.grey, image.width, image.height);
    if (read !== null) break;
  }
  if (read === null) return 'rendered image does not decode as a QR code';
  if (read !== payload) return 'rendered image decodes to a different payload';
  return undefined;
}

/** The largest side an image is read at: enough modules for any code, little memory. */
const READ_SIDE = 1200;

/**
 * What a QR code image (PNG, JPEG, SVG, ... anything libvips reads) encodes, or null when it
 * reads as no QR code: for codes known only by their image, as a GemPixel source shows them.
 * Transparency reads as white, as on paper.
 */
export async function decodeQrImage(bytes: Buffer): Promise<string | null> {
  let pixels: { data: Buffer; info: sharp.OutputInfo };
  try {
    pixels = await sharp(bytes, { limitInputPixels: 40_000_000 })
      .flatten({ background: '#ffffff' })
      .resize({ width: READ_SIDE, height: READ_SIDE, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    return null;
  }
  const { grey, width, height } = greyShrunk(pixels.data, pixels.info.width, pixels.info.height, 1);
  return readWithZxing(grey, width, height) ?? readWithJsqr(grey, width, height);
}
