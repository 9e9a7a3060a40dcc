import { decode as decodeWithFastPng, type DecodedPng } from 'fast-png';
import jsQR from 'jsqr';
import sharp from 'sharp';
import type { Rgb } from '../../src/qr-codes/qr-colors';
import { PURE_GRID_HINTS, readWithZxing } from '../../src/qr-codes/design/decode';
import {
  dark,
  luminance,
  moduleGreys,
  rgbGrey,
  sampleModules,
  type Geometry,
  type GreyAt,
} from './symbol-raster';

/**
 * The module grid (one grey pixel per module, with a margin of quiet zone) is read first by ZXing
 * as a pure barcode: it finds the symbol's corners and the module size from the top-left finder
 * pattern, samples every module, and corrects and decodes the data as a scanner would once it has
 * found a symbol. About 0.1 ms for a link's code, where jsQR spent 1 to 2 ms on the same grid
 * (at one pixel per module it does not read the smallest versions, so a link's code was read at
 * two, searching the whole image for finder and alignment patterns). Where ZXing does not read
 * the grid as the payload, jsQR reads the grid at one pixel per module, then at two (a link's
 * code: 0.56 and 0.85 ms, against 9 ms for the full 512 px image); then the image box-averaged to
 * three and four pixels per module; the full-size image gets the final say.
 */
const SAMPLED_PIXELS_PER_MODULE = [1, 2];
const DECODE_PIXELS_PER_MODULE = [3, 4];

/** Thrown when a rendered image does not read back as its payload: a permanent failure. */
export class UnreadableImageError extends Error {
  override name = 'UnreadableImageError';
}

const NOT_READABLE = 'rendered image is not a readable PNG';
const NOT_AS_DRAWN = 'rendered image does not hold the pixels drawn';

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

/** What an image with a logo must be: its RGB pixels as drawn, and where the modules lie. */
export interface Expected {
  pixels: Buffer;
  geometry: Geometry;
}

/** What a symbol without a logo must be: each pixel the colour of the module it lies in. */
export interface ExpectedSymbol {
  /** The module matrix, one byte per module, row by row. */
  data: Uint8Array;
  geometry: Geometry;
  size: number;
  foreground: Rgb;
  background: Rgb;
}

/** Decoded RGB pixels of a PNG, read by libvips (not by the code that wrote it). */
async function decodeRgb(png: Buffer): Promise<Pixels> {
  try {
    return await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch {
    throw new UnreadableImageError(NOT_READABLE);
  }
}

/** Whether ZXing reads the module grid, as a pure barcode, as exactly the payload. */
export function gridReadsAs(greyAt: GreyAt, g: Geometry, payload: string): boolean {
  const { grey, side } = moduleGreys(greyAt, g);
  // Where ZXing reads nothing, or something else, jsQR gets its turn.
  return readWithZxing(grey, side, side, PURE_GRID_HINTS) === payload;
}

/** The grid's first reading that is the payload; else the last reading, or null if none read. */
function readGrid(greyAt: GreyAt, g: Geometry, payload: string) {
  let result: ReturnType<typeof jsQR> = null;
  for (const pixelsPerModule of SAMPLED_PIXELS_PER_MODULE) {
    const { rgba, width } = sampleModules(greyAt, g, pixelsPerModule);
    result = jsQR(rgba, width, width, { inversionAttempts: 'dontInvert' });
    if (result && isPayload(result, payload)) return result;
  }
  return result;
}

/** The grid first; then ever larger box-averaged copies, the full image last. */
function read(pixels: Pixels, g: Geometry, payload: string): ReturnType<typeof jsQR> {
  const sampled = readGrid(rgbGrey(pixels.data, pixels.info.width), g, payload);
  if (sampled) return sampled;
  const factors = [
    ...new Set([...DECODE_PIXELS_PER_MODULE.map((p) => Math.floor(g.scale / p)), 1]),
  ].filter((f) => f >= 1);
  for (const f of factors) {
    const small = shrink(pixels, f);
    const result = jsQR(small.rgba, small.width, small.height, { inversionAttempts: 'dontInvert' });
    if (result) return result;
  }
  return null;
}

/** Whether jsQR's bytes are the payload's UTF-8 bytes. */
function isPayload(result: NonNullable<ReturnType<typeof jsQR>>, payload: string): boolean {
  return Buffer.from(result.binaryData).equals(Buffer.from(payload, 'utf8'));
}

/** jsQR's bytes must be the payload's UTF-8 bytes. */
function checkPayload(result: ReturnType<typeof jsQR>, payload: string): void {
  if (!result) {
    throw new UnreadableImageError('rendered image does not decode as a QR code');
  }
  if (!isPayload(result, payload)) {
    throw new UnreadableImageError('rendered image decodes to a different payload');
  }
}

/**
 * Proves the PNG scans: decodes its bytes back to pixels, which must be exactly the pixels drawn
 * from the module matrix (every module, the quiet zone and the logo), then reads them with ZXing
 * or jsQR (dark-on-light only, as most scanners read) and compares what they decode with the
 * payload.
 */
export async function verifyPng(png: Buffer, payload: string, expected: Expected): Promise<void> {
  const pixels = await decodeRgb(png);
  const { width, height, channels } = pixels.info;
  const side = Math.sqrt(expected.pixels.length / 3);
  if (width !== side || height !== side || channels !== 3 || !pixels.data.equals(expected.pixels)) {
    throw new UnreadableImageError(NOT_AS_DRAWN);
  }
  if (gridReadsAs(rgbGrey(pixels.data, width), expected.geometry, payload)) return;
  checkPayload(read(pixels, expected.geometry, payload), payload);
}

/** The module row pixel row `y` lies in; -1 in the quiet zone. */
function moduleRowAt(y: number, g: Geometry): number {
  const m = Math.floor((y - g.offset) / g.scale);
  return y < g.offset || m >= g.modules ? -1 : m;
}

/** Per pixel of a row in module row `band` (-1: the quiet zone), 1 where it is drawn dark. */
function drawnRow(expected: ExpectedSymbol, band: number, row: Uint8Array): void {
  const g = expected.geometry;
  row.fill(0);
  if (band < 0) return;
  for (let x = 0; x < g.modules; x += 1) {
    if (dark(expected.data, g, x, band)) {
      row.fill(1, g.offset + x * g.scale, g.offset + (x + 1) * g.scale);
    }
  }
}

function sameColour(entry: number[] | undefined, { r, g, b }: Rgb): boolean {
  return entry?.length === 3 && entry[0] === r && entry[1] === g && entry[2] === b;
}

/**
 * Whether a decoded 1-bit palette image holds exactly the symbol: each index's palette colour is
 * the background or the foreground, and every pixel's is that of its module. A pixel row is read
 * pixel by pixel, or found byte-equal to a row already read that lies in the same module row
 * (the same expected pixels): every pixel is checked, yet only about one row per module is read.
 */
function holdsSymbol(image: DecodedPng, expected: ExpectedSymbol): boolean {
  const { size, geometry: g } = expected;
  const { width, height, depth, channels, palette, transparency, data } = image;
  if (width !== size || height !== size || depth !== 1 || channels !== 1) return false;
  if (!palette || transparency) return false;
  // Per index: 0 draws the background, 1 the foreground, -1 neither (never right).
  const tone = [0, 1].map((i) => {
    if (sameColour(palette[i], expected.background)) return 0;
    return sameColour(palette[i], expected.foreground) ? 1 : -1;
  });
  const rowBytes = Math.ceil(size / 8);
  if (!(data instanceof Uint8Array) || data.length !== rowBytes * size) return false;
  const rows = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const drawn = new Uint8Array(size);
  let readRow = -1;
  let readBand = -2;
  for (let y = 0; y < size; y += 1) {
    const band = moduleRowAt(y, g);
    const start = y * rowBytes;
    const readStart = readRow * rowBytes;
    if (
      band === readBand &&
      rows.compare(rows, readStart, readStart + rowBytes, start, start + rowBytes) === 0
    ) {
      continue;
    }
    if (band !== readBand) drawnRow(expected, band, drawn);
    for (let x = 0; x < size; x += 1) {
      // The leftmost pixel in the high-order bit (PNG's packing of indices below 8 bits).
      const index = ((rows[start + (x >> 3)] as number) >> (7 - (x & 7))) & 1;
      if (tone[index] !== drawn[x]) return false;
    }
    readRow = y;
    readBand = band;
  }
  return true;
}

/**
 * The proof for a symbol without a logo, written as a 1-bit palette PNG: fast-png (not the code
 * that wrote it, and not zlib either) inflates and unfilters it, CRCs checked, and every pixel
 * must be what the module matrix says; ZXing (else jsQR) then reads the decoded image's module
 * grid. Measured at 512 px: a sixth of the cost of decoding with libvips and comparing with a full
 * RGB raster (libvips expanding 262,144 palette pixels to RGB was most of it). Only if the grid
 * does not read are RGB pixels made (by libvips) for the larger reads.
 */
export async function verifySymbolPng(
  png: Buffer,
  payload: string,
  expected: ExpectedSymbol,
): Promise<void> {
  let image: DecodedPng;
  try {
    image = decodeWithFastPng(png, { checkCrc: true });
  } catch {
    throw new UnreadableImageError(NOT_READABLE);
  }
  if (!holdsSymbol(image, expected)) throw new UnreadableImageError(NOT_AS_DRAWN);
  const rows = image.data;
  const rowBytes = Math.ceil(expected.size / 8);
  const palette = image.palette as number[][];
  const greys = palette.map(([r = 0, g = 0, b = 0]) => luminance(r, g, b));
  const greyAt = (x: number, y: number) =>
    greys[((rows[y * rowBytes + (x >> 3)] as number) >> (7 - (x & 7))) & 1] as number;
  if (gridReadsAs(greyAt, expected.geometry, payload)) return;
  const result =
    readGrid(greyAt, expected.geometry, payload) ??
    read(await decodeRgb(png), expected.geometry, payload);
  checkPayload(result, payload);
}
