import sharp from 'sharp';
import { LOGO_MAX_PIXELS } from '../../src/qr-codes/logo/logo-source';
import { buildDesign, type Design } from '../../src/qr-codes/design/design';
import { qrMatrix } from '../../src/qr-codes/design/matrix';
import { readsAs } from '../../src/qr-codes/design/decode';
import { errorCorrectionOf } from '../../src/qr-codes/design/style';
import { designSvg } from '../../src/qr-codes/design/svg';
import { MIN_MODULE_PIXELS } from '../../src/qr-codes/qr-symbol';
import type { Rgb } from '../../src/qr-codes/qr-colors';
import type { RenderInput, RenderOutput } from './render-qr';
import { RenderError } from './render-errors';
import { UnreadableImageError } from './verify-png';

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

/** The proof for a styled code (see `readsAs`): the PNG must read back as the payload. */
export async function proveDesignPng(png: Buffer, payload: string, design: Design): Promise<void> {
  const problem = await readsAs(png, payload, design.width);
  if (problem) throw new UnreadableImageError(problem);
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
