import QRCode from 'qrcode';
import sharp from 'sharp';
import type { Rgb } from '../../src/qr-codes/qr-colors';
import { LOGO_MAX_PIXELS } from '../../src/qr-codes/logo/logo-source';
import { MIN_MODULE_PIXELS, modulePixels } from '../../src/qr-codes/qr-symbol';
import {
  DEFAULT_LOGO_SIZE,
  errorCorrectionOf,
  isStyled,
  marginOf,
  type QrStyle,
} from '../../src/qr-codes/design/style';
import { plateModules } from '../../src/qr-codes/design/design';
import { renderDesign } from './render-design';
import { RenderError } from './render-errors';
import { dark, rasterise, symbolPng, type Geometry } from './symbol-raster';
import { verifyPng, verifySymbolPng } from './verify-png';

export interface RenderInput {
  payload: string;
  /** Width and height of the PNG in pixels (and the SVG's nominal size). */
  size: number;
  foreground: Rgb;
  background: Rgb;
  /** png or jpeg bytes, already checked; composited in the centre on a cleared plate. */
  logo?: Uint8Array | undefined;
  /** Side of the cleared plate as a share of the symbol's side (else the style's logoSize). */
  plateShare?: number;
  /** Shapes, gradient, frame, margin and error correction; plain squares without. */
  style?: QrStyle | null | undefined;
  /** Decode the PNG and compare it with the payload before returning (the worker always does). */
  verify?: boolean;
}

export interface RenderOutput {
  png: Buffer;
  svg: Buffer;
  /** The logo as placed (fitted, flattened, PNG), kept so PDF and EPS can be drawn later. */
  logo?: Buffer | undefined;
}

export { RenderError };

function geometry(
  modules: number,
  size: number,
  margin: number,
  hasLogo: boolean,
  plateShare: number,
): Geometry {
  const scale = modulePixels(size, modules + 2 * margin);
  if (scale < MIN_MODULE_PIXELS) {
    throw new RenderError(`${size} px is too small for this much data: use a larger size`);
  }
  const plate = hasLogo ? plateModules(modules, plateShare) : 0;
  return {
    modules,
    scale,
    offset: Math.floor((size - scale * modules) / 2),
    plateStart: (modules - plate) / 2,
    plateModules: plate,
  };
}

/** One path of horizontal runs, in module units: compact, and exact at any zoom. */
function svgPath(data: Uint8Array, g: Geometry): string {
  const parts: string[] = [];
  for (let y = 0; y < g.modules; y += 1) {
    let x = 0;
    while (x < g.modules) {
      if (!dark(data, g, x, y)) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < g.modules && dark(data, g, x, y)) x += 1;
      parts.push(`M${start} ${y}h${x - start}v1h${start - x}z`);
    }
  }
  return parts.join('');
}

function rgb({ r, g, b }: Rgb): string {
  return `rgb(${r},${g},${b})`;
}

/** The PNG's exact geometry (pixel viewBox, same offset and module size, same logo bytes). */
function buildSvg(data: Uint8Array, g: Geometry, input: RenderInput, logo?: LogoPlacement) {
  const { size } = input;
  const image = logo
    ? `<image x="${logo.left}" y="${logo.top}" width="${logo.width}" height="${logo.width}" href="data:image/png;base64,${logo.png.toString('base64')}"/>`
    : '';
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
      `<rect width="${size}" height="${size}" fill="${rgb(input.background)}"/>` +
      `<path transform="translate(${g.offset} ${g.offset}) scale(${g.scale})" d="${svgPath(data, g)}" fill="${rgb(input.foreground)}"/>${image}</svg>`,
  );
}

interface LogoPlacement {
  /** Flattened RGB pixels, `width` x `width`. */
  rgb: Buffer;
  /** The same pixels as PNG, for the SVG. */
  png: Buffer;
  left: number;
  top: number;
  width: number;
}

/**
 * The logo fitted inside the plate with half a module of margin, its transparency flattened onto
 * the background colour, so the output needs no alpha channel (smaller, faster to encode).
 */
async function placeLogo(logo: Uint8Array, g: Geometry, background: Rgb): Promise<LogoPlacement> {
  const margin = Math.max(1, Math.round(g.scale / 2));
  const width = g.plateModules * g.scale - 2 * margin;
  // The header passed the loader's check, but the pixel data may still be corrupt.
  const { data: rgb, info } = await sharp(logo, { limitInputPixels: LOGO_MAX_PIXELS })
    .rotate()
    .resize(width, width, { fit: 'contain', background: { ...background, alpha: 1 } })
    .flatten({ background })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch(() => {
      throw new RenderError('logo image data is corrupt');
    });
  if (info.channels !== 3) throw new RenderError('logo could not be converted to RGB');
  const png = await sharp(rgb, { raw: { width, height: width, channels: 3 } })
    .png()
    .toBuffer();
  const left = g.offset + g.plateStart * g.scale + margin;
  return { rgb, png, left, top: left, width };
}

/**
 * Copies the logo's rows into the symbol's pixels. The plate is already the background colour
 * and the logo is opaque, so this is all sharp's composite would do here, at a fraction of its
 * cost (measured: about 1 ms of a 9 ms render).
 */
function blitLogo(pixels: Buffer, size: number, logo: LogoPlacement): void {
  const rowBytes = logo.width * 3;
  for (let y = 0; y < logo.width; y += 1) {
    logo.rgb.copy(
      pixels,
      ((logo.top + y) * size + logo.left) * 3,
      y * rowBytes,
      (y + 1) * rowBytes,
    );
  }
}

/**
 * Payload and options in, PNG and SVG bytes out; no I/O, no clock, no randomness, so the same
 * input always yields the same bytes. `qrcode` lays out the modules. Without a logo the PNG is a
 * 1-bit indexed image written from the matrix; with one, sharp fits and flattens the logo and
 * encodes the RGB pixels written directly here, which measured faster than having sharp rasterise
 * an SVG or composite. Either way the proof compares the decoded PNG with the drawn pixels.
 */
export async function renderQr(input: RenderInput): Promise<RenderOutput> {
  if (isStyled(input.style)) return renderDesign(input);
  const hasLogo = input.logo !== undefined;
  let symbol: QRCode.QRCode;
  try {
    symbol = QRCode.create(input.payload, {
      errorCorrectionLevel: errorCorrectionOf(input.style, hasLogo),
    });
  } catch (err) {
    throw new RenderError(`payload does not fit in a QR code: ${(err as Error).message}`);
  }
  const data = symbol.modules.data;
  const g = geometry(
    symbol.modules.size,
    input.size,
    marginOf(input.style),
    hasLogo,
    input.plateShare ?? input.style?.logoSize ?? DEFAULT_LOGO_SIZE,
  );
  const logo = input.logo ? await placeLogo(input.logo, g, input.background) : undefined;
  const { size, foreground: fg, background: bg } = input;
  let png: Buffer;
  if (logo) {
    const pixels = rasterise(data, g, size, fg, bg);
    blitLogo(pixels, size, logo);
    png = await sharp(pixels, { raw: { width: size, height: size, channels: 3 } })
      .png()
      .toBuffer();
    if (input.verify !== false) await verifyPng(png, input.payload, { pixels, geometry: g });
  } else {
    png = symbolPng(data, g, size, fg, bg);
    if (input.verify !== false) {
      await verifySymbolPng(png, input.payload, {
        data,
        geometry: g,
        size,
        foreground: fg,
        background: bg,
      });
    }
  }
  return { png, svg: buildSvg(data, g, input, logo), logo: logo?.png };
}
