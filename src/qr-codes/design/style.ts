import Joi from 'joi';
import { formatRgb, parseRgb } from '../qr-colors';

export const DOT_STYLES = ['square', 'rounded', 'dots', 'classy', 'extra-rounded'] as const;
export const CORNER_SHAPES = ['square', 'rounded', 'circle'] as const;
export const GRADIENT_TYPES = ['linear', 'radial'] as const;
export const FRAME_TYPES = ['none', 'box', 'banner-top', 'banner-bottom'] as const;
export const ERROR_CORRECTIONS = ['L', 'M', 'Q', 'H'] as const;

export type DotStyle = (typeof DOT_STYLES)[number];
export type CornerShape = (typeof CORNER_SHAPES)[number];
export type ErrorCorrection = (typeof ERROR_CORRECTIONS)[number];

export interface CornerPart {
  shape?: CornerShape;
  color?: string;
}

/** A QR code's design; every part optional, colours stored as `rgb(r,g,b)`. */
export interface QrStyle {
  dots?: DotStyle;
  corners?: { frame?: CornerPart; ball?: CornerPart };
  gradient?: { type: (typeof GRADIENT_TYPES)[number]; colors: string[]; rotation?: number };
  frame?: {
    type: (typeof FRAME_TYPES)[number];
    text?: string;
    color?: string;
    textColor?: string;
  };
  /** Quiet zone in modules. */
  margin?: number;
  errorCorrection?: ErrorCorrection;
  /** Side of the logo's cleared plate as a share of the symbol's side. */
  logoSize?: number;
}

export const DEFAULT_MARGIN = 4;
export const MIN_MARGIN = 2;
/**
 * A quarter of the side is about 6 % of the symbol's area, well inside the 30 % of codewords
 * level H restores. Tried on payloads of 5 to 1200 bytes at 512 and 1024 px, every symbol still
 * decoded up to 0.3 and some failed from 0.35; the decode check proves each image anyway.
 */
export const DEFAULT_LOGO_SIZE = 0.25;
/**
 * The bounds of `style.logoSize`. Below a tenth a logo is too small to see; above 0.4 the plate
 * destroys more codewords than level H restores for every symbol. Between them the codeword
 * count (`logoBudget`) refuses what would not read: at 0.4 with level H, 106 of 124 symbols tried
 * (link payloads of 25 to 420 bytes, plain and styled, level Q and H) passed it, and every one of
 * those rendered and decoded.
 */
export const MIN_LOGO_SIZE = 0.1;
export const MAX_LOGO_SIZE = 0.4;
export const MAX_FRAME_TEXT = 30;

/** `rgb(r,g,b)` or `#rrggbb`, stored as `rgb(r,g,b)`. */
export const colourSchema = Joi.string()
  .max(40)
  .custom((value: string, helpers) => {
    const rgb = parseRgb(value);
    return rgb ? formatRgb(rgb) : helpers.error('string.rgb');
  })
  .messages({
    'string.rgb': '{#label} must be of the form rgb(r,g,b) with 0..255 each, or #rrggbb',
  });

const corner = Joi.object<CornerPart>({
  shape: Joi.string().valid(...CORNER_SHAPES),
  color: colourSchema,
});

export const styleSchema = Joi.object<QrStyle>({
  dots: Joi.string().valid(...DOT_STYLES),
  corners: Joi.object({ frame: corner, ball: corner }),
  gradient: Joi.object({
    type: Joi.string()
      .valid(...GRADIENT_TYPES)
      .required(),
    colors: Joi.array().items(colourSchema).min(2).max(3).required(),
    rotation: Joi.number().min(-360).max(360),
  }),
  frame: Joi.object({
    type: Joi.string()
      .valid(...FRAME_TYPES)
      .required(),
    text: Joi.string().max(MAX_FRAME_TEXT).allow(''),
    color: colourSchema,
    textColor: colourSchema,
  }),
  margin: Joi.number().integer().min(MIN_MARGIN).max(16),
  errorCorrection: Joi.string().valid(...ERROR_CORRECTIONS),
  logoSize: Joi.number()
    .min(MIN_LOGO_SIZE)
    .max(MAX_LOGO_SIZE)
    .description(
      `Side of the logo (its cleared plate) as a share of the code's width, ${MIN_LOGO_SIZE} to ${MAX_LOGO_SIZE}; ${DEFAULT_LOGO_SIZE} by default. A size that would wipe out more codewords than the error correction restores is refused with a 422 naming style.logoSize.`,
    ),
}).allow(null);

/** The error-correction level: the style's, else H with a logo (30 % recoverable), M without. */
export function errorCorrectionOf(style: QrStyle | null | undefined, hasLogo: boolean) {
  return style?.errorCorrection ?? (hasLogo ? 'H' : 'M');
}

export function marginOf(style: QrStyle | null | undefined): number {
  return style?.margin ?? DEFAULT_MARGIN;
}

/**
 * Whether anything but the margin and the error-correction level is set: such a code is drawn as
 * vector shapes; a plain one keeps the fast path (1-bit PNG written straight from the matrix).
 */
export function isStyled(style: QrStyle | null | undefined): boolean {
  if (!style) return false;
  const frame = style.frame && style.frame.type !== 'none';
  const dots = style.dots && style.dots !== 'square';
  return Boolean(frame || dots || style.gradient || style.corners);
}

export function rgbOf(value: string) {
  return parseRgb(value) ?? { r: 0, g: 0, b: 0 };
}
