import sharp from 'sharp';
import { readsAs } from '../../src/qr-codes/design/decode';
import { buildDesign, type Design } from '../../src/qr-codes/design/design';
import { designEps } from '../../src/qr-codes/design/eps';
import { qrMatrix } from '../../src/qr-codes/design/matrix';
import { designPdf } from '../../src/qr-codes/design/pdf';
import { errorCorrectionOf, type QrStyle } from '../../src/qr-codes/design/style';
import { designSvg } from '../../src/qr-codes/design/svg';
import { parseRgb } from '../../src/qr-codes/qr-colors';
import { MIN_MODULE_PIXELS } from '../../src/qr-codes/qr-symbol';
import { POINTS_PER_PIXEL, type VariantAsk } from '../../src/qr-codes/qr-variants';
import { RenderError } from './render-errors';

/** What a render thread needs to draw a variant: plain values, as a thread message carries. */
export interface VariantInput {
  payload: string;
  /** The code's own size in pixels: PDF and EPS are drawn at it (96 dpi). */
  size: number;
  foreground: string;
  background: string;
  style: QrStyle | null;
  /** The logo as the render placed it (PNG). */
  logo?: Uint8Array | undefined;
  /** Milliseconds since the epoch, written into PDF metadata so the bytes never vary. */
  date: number;
  ask: VariantAsk;
}

function designOf(input: VariantInput): Design {
  const hasLogo = input.logo !== undefined;
  // The render's own call: the same payload and level always give the same matrix and mask.
  const matrix = qrMatrix(input.payload, errorCorrectionOf(input.style, hasLogo));
  if (!matrix) throw new RenderError('the QR code no longer fits its payload');
  return buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style: input.style,
    foreground: parseRgb(input.foreground) ?? { r: 0, g: 0, b: 0 },
    background: parseRgb(input.background) ?? { r: 255, g: 255, b: 255 },
    hasLogo,
  });
}

/**
 * A ready code's image in a size or format the render did not store, drawn from its design:
 * a PNG size is rasterised from the SVG master and proven like every render (a size no decoder
 * reads is refused, never served); PDF and EPS are written from the same shapes.
 */
export async function renderVariant(input: VariantInput): Promise<Buffer> {
  const design = designOf(input);
  const { ask } = input;
  const logo = input.logo ? Buffer.from(input.logo) : undefined;
  if (ask.format === 'png' || ask.format === 'svg') {
    const size = ask.size ?? input.size;
    if (size / design.width < MIN_MODULE_PIXELS) {
      throw new RenderError(
        `size ${size} px is too small for this code: at least ${Math.ceil(design.width * MIN_MODULE_PIXELS)} px is needed`,
      );
    }
    const svg = Buffer.from(designSvg(design, size, logo));
    if (ask.format === 'svg') return svg;
    const png = await sharp(svg).flatten({ background: design.background }).png().toBuffer();
    const problem = await readsAs(png, input.payload, design.width);
    if (problem) throw new RenderError(`${problem} at ${size} px`);
    return png;
  }
  const options = {
    widthPt: input.size * POINTS_PER_PIXEL,
    cmyk: ask.cmyk,
    bleedMm: ask.bleedMm,
    logoPng: logo,
    date: new Date(input.date),
  };
  return ask.format === 'pdf' ? designPdf(design, options) : designEps(design, options);
}
