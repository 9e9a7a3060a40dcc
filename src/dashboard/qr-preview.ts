import sharp from 'sharp';
import { buildDesign } from '../qr-codes/design/design';
import { qrMatrix } from '../qr-codes/design/matrix';
import { designProblem } from '../qr-codes/design/readability';
import { errorCorrectionOf, type QrStyle } from '../qr-codes/design/style';
import { designSvg } from '../qr-codes/design/svg';
import { LogoError } from '../qr-codes/logo/logo-errors';
import { LOGO_MAX_PIXELS, loadLogo, type LogoOptions } from '../qr-codes/logo/logo-source';
import type { QrType } from '../qr-codes/qr-code.model';
import {
  colourProblem,
  DEFAULT_BACKGROUND,
  DEFAULT_FOREGROUND,
  parseRgb,
  type Rgb,
} from '../qr-codes/qr-colors';
import { parseQrContent } from '../qr-codes/qr-content';
import { encodeQrPayload } from '../qr-codes/qr-payload';
import { validation } from '../shared/errors/app-error';

export interface PreviewInput {
  type: QrType;
  data: unknown;
  foreground?: string;
  background?: string;
  logo?: string | null;
  style?: QrStyle | null;
}

/** Nominal width of the preview's SVG in pixels; the logo is fitted at this scale. */
const PREVIEW_WIDTH = 512;

function colour(value: string | undefined, fallback: string, name: string): Rgb {
  const rgb = parseRgb(value || fallback);
  if (!rgb) throw validation(`${name} must be of the form rgb(r,g,b) with 0..255 each`, name);
  return rgb;
}

async function fitLogo(logo: string, pixels: number, background: Rgb, options: LogoOptions) {
  let bytes: Buffer;
  try {
    bytes = await loadLogo(logo, options);
  } catch (err) {
    if (err instanceof LogoError) throw validation(`logo: ${err.message}`, 'logo');
    throw err;
  }
  return sharp(bytes, { limitInputPixels: LOGO_MAX_PIXELS })
    .rotate()
    .resize(pixels, pixels, { fit: 'contain', background: { ...background, alpha: 1 } })
    .flatten({ background })
    .png()
    .toBuffer()
    .catch(() => {
      throw validation('logo: the image data is corrupt', 'logo');
    });
}

/**
 * The SVG master the worker draws (same payload, matrix, style shapes, logo plate and design
 * refusals), for the form's live preview. The worker's image, proven by decoding, stays the
 * reference.
 */
export async function renderPreview(
  input: PreviewInput,
  dynamicUrl: string,
  logoOptions: LogoOptions,
): Promise<string> {
  const content = parseQrContent(input.type, input.data);
  const foreground = colour(input.foreground, DEFAULT_FOREGROUND, 'foreground');
  const background = colour(input.background, DEFAULT_BACKGROUND, 'background');
  const problem = colourProblem(foreground, background);
  if (problem) throw validation(problem, 'foreground');
  const payload = encodeQrPayload(content, dynamicUrl);
  const hasLogo = Boolean(input.logo);
  const matrix = qrMatrix(payload, errorCorrectionOf(input.style, hasLogo));
  if (!matrix) throw validation('data is too long to fit in a QR code', 'data');
  const refused = designProblem({ style: input.style, foreground, background, matrix, hasLogo });
  if (refused) throw validation(refused.message, refused.field);
  const design = buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style: input.style,
    foreground,
    background,
    hasLogo,
  });
  const logo =
    input.logo && design.logo
      ? await fitLogo(
          input.logo,
          Math.round((design.logo.size * PREVIEW_WIDTH) / design.width),
          background,
          logoOptions,
        )
      : undefined;
  return designSvg(design, PREVIEW_WIDTH, logo);
}
