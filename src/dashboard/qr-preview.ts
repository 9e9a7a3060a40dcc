import QRCode from 'qrcode';
import sharp from 'sharp';
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
import { errorCorrectionFor, QUIET_ZONE } from '../qr-codes/qr-symbol';
import { validation } from '../shared/errors/app-error';

export interface PreviewInput {
  type: QrType;
  data: unknown;
  foreground?: string;
  background?: string;
  logo?: string | null;
}

/** Share of the symbol's side the logo's plate covers (the render worker's default). */
const PLATE_SHARE = 0.25;

const hex = ({ r, g, b }: Rgb) =>
  `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

function colour(value: string | undefined, fallback: string, name: string): Rgb {
  const rgb = parseRgb(value || fallback);
  if (!rgb) throw validation(`${name} must be of the form rgb(r,g,b) with 0..255 each`);
  return rgb;
}

/** The logo on a plate of background colour at the centre, as the worker places it. */
async function logoOverlay(logo: string, modules: number, background: Rgb, options: LogoOptions) {
  let bytes: Buffer;
  try {
    bytes = await loadLogo(logo, options);
  } catch (err) {
    if (err instanceof LogoError) throw validation(`logo: ${err.message}`);
    throw err;
  }
  let plate = Math.max(3, Math.round(modules * PLATE_SHARE));
  if (plate % 2 === 0) plate -= 1;
  const start = QUIET_ZONE + (modules - plate) / 2;
  const png = await sharp(bytes, { limitInputPixels: LOGO_MAX_PIXELS })
    .resize(160, 160, { fit: 'contain', background: { ...background, alpha: 1 } })
    .flatten({ background })
    .png()
    .toBuffer();
  return (
    `<rect x="${start}" y="${start}" width="${plate}" height="${plate}" fill="${hex(background)}"/>` +
    `<image x="${start + 0.5}" y="${start + 0.5}" width="${plate - 1}" height="${plate - 1}" href="data:image/png;base64,${png.toString('base64')}"/>`
  );
}

/**
 * An SVG close to what the worker will render: the same payload, error correction, colours and
 * contrast rule, and the logo on its plate. The worker's image (checked by decoding) stays the
 * reference; this is for the form's live preview.
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
  if (problem) throw validation(problem);
  const payload = encodeQrPayload(content, dynamicUrl);
  const errorCorrectionLevel = errorCorrectionFor(Boolean(input.logo));
  let modules: number;
  try {
    modules = QRCode.create(payload, { errorCorrectionLevel }).modules.size;
  } catch {
    throw validation('data is too long to fit in a QR code');
  }
  const svg = await QRCode.toString(payload, {
    type: 'svg',
    margin: QUIET_ZONE,
    errorCorrectionLevel,
    color: { dark: hex(foreground), light: hex(background) },
  });
  if (!input.logo) return svg;
  const overlay = await logoOverlay(input.logo, modules, background, logoOptions);
  return svg.replace(/<\/svg>\s*$/, `${overlay}</svg>`);
}
