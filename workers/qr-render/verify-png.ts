import jsQR from 'jsqr';
import sharp from 'sharp';
import { sampleModules, type Geometry } from './symbol-raster';

/**
 * jsQR's cost grows with the pixel count, so it first reads the module grid sampled at two pixels
 * per module (about 1 ms at 512 px against 9 ms for the full image); then the image box-averaged
 * to three and four pixels per module; the full-size image gets the final say.
 */
const SAMPLED_PIXELS_PER_MODULE = 2;
const DECODE_PIXELS_PER_MODULE = [3, 4];

/** Thrown when a rendered image does not read back as its payload: a permanent failure. */
export class UnreadableImageError extends Error {
  override name = 'UnreadableImageError';
}

interface Pixels {
  data: Buffer;
  info: { width: number; height: number; channels: number };
}

/**
 * The image's luminance (jsQR's own weights), box-averaged by a whole factor, as grey RGBA for
 * jsQR. Averaging rather than sampling keeps every pixel of the image in the proof.
 */
function shrink({ data, info }: Pixels, f: number) {
  const width = Math.floor(info.width / f);
  const height = Math.floor(info.height / f);
  const { channels } = info;
  const rgba = new Uint8ClampedArray(width * height * 4);
  // Integer weights (x 10000) keep the inner loop free of floating point.
  const divisor = f * f * 10000;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let sum = 0;
      for (let dy = 0; dy < f; dy += 1) {
        let i = ((y * f + dy) * info.width + x * f) * channels;
        for (let dx = 0; dx < f; dx += 1, i += channels) {
          sum +=
            2126 * (data[i] as number) +
            7152 * (data[i + 1] as number) +
            722 * (data[i + 2] as number);
        }
      }
      const o = (y * width + x) * 4;
      rgba[o] = rgba[o + 1] = rgba[o + 2] = sum / divisor;
      rgba[o + 3] = 255;
    }
  }
  return { rgba, width, height };
}

/** What the image must be: its RGB pixels as drawn, and where the modules lie in them. */
export interface Expected {
  pixels: Buffer;
  geometry: Geometry;
}

/** Decoded RGB pixels of a PNG, read by libvips (not by the code that wrote it). */
async function decode(png: Buffer): Promise<Pixels> {
  try {
    return await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch {
    throw new UnreadableImageError('rendered image is not a readable PNG');
  }
}

function read(pixels: Pixels, expected: Expected): ReturnType<typeof jsQR> {
  const { rgba, width } = sampleModules(
    pixels.data,
    pixels.info.width,
    expected.geometry,
    SAMPLED_PIXELS_PER_MODULE,
  );
  const sampled = jsQR(rgba, width, width, { inversionAttempts: 'dontInvert' });
  if (sampled) return sampled;
  const scale = expected.geometry.scale;
  const factors = [
    ...new Set([...DECODE_PIXELS_PER_MODULE.map((p) => Math.floor(scale / p)), 1]),
  ].filter((f) => f >= 1);
  for (const f of factors) {
    const small = shrink(pixels, f);
    const result = jsQR(small.rgba, small.width, small.height, { inversionAttempts: 'dontInvert' });
    if (result) return result;
  }
  return null;
}

/**
 * Proves the PNG scans: decodes its bytes back to pixels, which must be exactly the pixels drawn
 * from the module matrix (every module, the quiet zone and the logo), then reads them with jsQR
 * (dark-on-light only, as most scanners read) and compares the decoded bytes with the payload's
 * UTF-8 bytes.
 */
export async function verifyPng(png: Buffer, payload: string, expected: Expected): Promise<void> {
  const pixels = await decode(png);
  const { width, height, channels } = pixels.info;
  const side = Math.sqrt(expected.pixels.length / 3);
  if (width !== side || height !== side || channels !== 3 || !pixels.data.equals(expected.pixels)) {
    throw new UnreadableImageError('rendered image does not hold the pixels drawn');
  }
  const result = read(pixels, expected);
  if (!result) {
    throw new UnreadableImageError('rendered image does not decode as a QR code');
  }
  if (!Buffer.from(result.binaryData).equals(Buffer.from(payload, 'utf8'))) {
    throw new UnreadableImageError('rendered image decodes to a different payload');
  }
}
