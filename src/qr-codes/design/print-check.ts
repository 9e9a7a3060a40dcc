import { contrastRatio, MIN_CONTRAST, type Rgb } from '../qr-colors';
import { buildDesign } from './design';
import type { Matrix } from './matrix';
import { colourAt } from './path';
import { logoBudget } from './readability';
import { rgbOf, type QrStyle } from './style';

/** The width a symbol needs is a tenth of the scanning distance: the industry's 10:1 rule. */
export const DISTANCE_RATIO = 10;
/** Below this module size phone cameras struggle at any distance (and presses smudge). */
export const MIN_MODULE_MM = 0.4;
/** ISO/IEC 18004's quiet zone for QR codes. */
export const ISO_QUIET_ZONE = 4;

export interface PrintCheck {
  distance: number;
  rule: string;
  modules: number;
  moduleMm: number;
  symbolMm: number;
  width: number;
  height: number;
  contrast: number;
  quietZone: { modules: number; mm: number };
  errorCorrection: { level: string; logoCodewords: number; correctable: number; headroom: number };
  warnings: string[];
}

const mm = (v: number) => Math.ceil(v * 10) / 10;

/** The lowest WCAG ratio of any dark colour (gradients sampled along the axis) to the background. */
function worstContrast(style: QrStyle | null, foreground: Rgb, background: Rgb): number {
  const darks: Rgb[] = [];
  const g = style?.gradient;
  if (g) {
    const stops = g.colors.map((c, i) => ({ offset: i / (g.colors.length - 1), rgb: rgbOf(c) }));
    for (let i = 0; i <= 20; i += 1) darks.push(colourAt(stops, i / 20));
  } else {
    darks.push(foreground);
  }
  for (const c of [style?.corners?.frame?.color, style?.corners?.ball?.color]) {
    if (c) darks.push(rgbOf(c));
  }
  return Math.min(...darks.map((d) => contrastRatio(d, background)));
}

/**
 * The smallest print that scans from `distance` metres: the symbol a tenth of the distance wide,
 * each module at least 0.4 mm; the rest of the drawing (quiet zone, frame) scales with it.
 */
export function printCheck(options: {
  distance: number;
  matrix: Matrix;
  style: QrStyle | null;
  foreground: Rgb;
  background: Rgb;
  hasLogo: boolean;
  /** The width of the PDF at its default size, in mm, to warn when it prints too small. */
  defaultWidthMm: number;
}): PrintCheck {
  const { matrix, style, distance } = options;
  const design = buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style,
    foreground: options.foreground,
    background: options.background,
    hasLogo: options.hasLogo,
  });
  const byDistance = (distance * 1000) / DISTANCE_RATIO / matrix.modules;
  const moduleMm = Math.max(byDistance, MIN_MODULE_MM);
  const contrast =
    Math.floor(worstContrast(style, options.foreground, options.background) * 100) / 100;
  const side = design.plate.modules;
  const budget = options.hasLogo
    ? logoBudget(matrix, { start: design.plate.start, modules: side })
    : logoBudget(matrix, { start: 0, modules: 0 });
  const warnings: string[] = [];
  if (design.margin < ISO_QUIET_ZONE) {
    warnings.push(
      `the quiet zone is ${design.margin} modules; ISO/IEC 18004 asks for ${ISO_QUIET_ZONE}: keep ${ISO_QUIET_ZONE - design.margin} more modules clear of print around the code`,
    );
  }
  if (contrast < 4.5) {
    warnings.push(
      `contrast is ${contrast}:1, above the ${MIN_CONTRAST}:1 floor but low for print: dim light and glossy paper lower it further`,
    );
  }
  const headroom = budget.correctable - budget.damaged;
  if (options.hasLogo && headroom < 2) {
    warnings.push(
      `the logo leaves ${headroom} codewords of error correction per block: a scratch or fold may make the code unreadable`,
    );
  }
  const widthMm = mm(moduleMm * design.width);
  if (options.defaultWidthMm < widthMm) {
    warnings.push(
      `the PDF and EPS are ${mm(options.defaultWidthMm)} mm wide at their own size: scale them to at least ${widthMm} mm`,
    );
  }
  return {
    distance,
    rule: `the symbol is at least a ${DISTANCE_RATIO}th of the scanning distance wide (the 10:1 rule), each module at least ${MIN_MODULE_MM} mm`,
    modules: matrix.modules,
    moduleMm: Math.ceil(moduleMm * 100) / 100,
    symbolMm: mm(moduleMm * matrix.modules),
    width: widthMm,
    height: mm(moduleMm * design.height),
    contrast,
    quietZone: { modules: design.margin, mm: mm(moduleMm * design.margin) },
    errorCorrection: {
      level: matrix.errorCorrection,
      logoCodewords: budget.damaged,
      correctable: budget.correctable,
      headroom,
    },
    warnings,
  };
}
