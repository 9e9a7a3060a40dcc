import { colourProblem, contrastRatio, formatRgb, MIN_CONTRAST, type Rgb } from '../qr-colors';
import type { Matrix } from './matrix';
import { colourAt } from './path';
import { MAX_FRAME_TEXT, rgbOf, type QrStyle } from './style';
import { missingGlyphs } from './text';
import { plateModules } from './design';
import { DEFAULT_LOGO_SIZE } from './style';

interface EcTables {
  getBlocksCount(version: number, level: { bit: number }): number;
  getTotalCodewordsCount(version: number, level: { bit: number }): number;
}
/** ISO/IEC 18004 table 9 as the `qrcode` package (which lays the symbol out) holds it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const EC = require('qrcode/lib/core/error-correction-code') as EcTables;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LEVELS = require('qrcode/lib/core/error-correction-level') as Record<string, { bit: number }>;

/** Misdecode-protection codewords p of ISO/IEC 18004 table 9 (small symbols keep some back). */
function misdecodeProtection(version: number, level: Matrix['errorCorrection']): number {
  if (version === 1) return level === 'L' ? 3 : level === 'M' ? 2 : 1;
  if (version === 2 && level === 'L') return 2;
  if (version === 3 && level === 'L') return 1;
  return 0;
}

export interface LogoBudget {
  /** Codewords the plate destroys in the worst block. */
  damaged: number;
  /** Codewords (errors at unknown places) one block corrects: (ec - p) / 2. */
  correctable: number;
}

/**
 * Which codewords the logo's plate wipes out, found by walking the data placement of ISO/IEC
 * 18004 (two-module columns, upwards and downwards from the bottom right, skipping function
 * patterns), then counted per interleaved block against what that block's error correction fixes.
 */
export function logoBudget(matrix: Matrix, plate: { start: number; modules: number }): LogoBudget {
  const n = matrix.modules;
  const level = LEVELS[matrix.errorCorrection] as { bit: number };
  const blocks = EC.getBlocksCount(matrix.version, level);
  const ecPerBlock = EC.getTotalCodewordsCount(matrix.version, level) / blocks;
  const totalCodewords = Math.floor([...matrix.reserved].filter((r) => !r).length / 8);
  const dataCodewords = totalCodewords - ecPerBlock * blocks;
  const shortBlocks = blocks - (totalCodewords % blocks);
  const shortData = Math.floor(dataCodewords / blocks);
  const blockOf = (index: number): number => {
    if (index >= dataCodewords) return (index - dataCodewords) % blocks;
    // Data codewords are interleaved; long blocks (one more codeword) come last.
    const round = Math.floor(index / blocks);
    if (round < shortData) return index % blocks;
    return shortBlocks + (index - shortData * blocks);
  };
  const end = plate.start + plate.modules;
  const inPlate = (x: number, y: number) =>
    x >= plate.start && x < end && y >= plate.start && y < end;
  const damaged = new Set<number>();
  let bit = 0;
  let up = true;
  for (let col = n - 1; col > 0; col -= 2) {
    if (col === 6) col -= 1;
    for (let i = 0; i < n; i += 1) {
      const row = up ? n - 1 - i : i;
      for (let c = 0; c < 2; c += 1) {
        const x = col - c;
        if (matrix.reserved[row * n + x]) continue;
        const codeword = bit >> 3;
        if (codeword < totalCodewords && inPlate(x, row)) damaged.add(codeword);
        bit += 1;
      }
    }
    up = !up;
  }
  const perBlock = new Array<number>(blocks).fill(0);
  for (const codeword of damaged)
    perBlock[blockOf(codeword)] = (perBlock[blockOf(codeword)] ?? 0) + 1;
  const correctable = Math.floor(
    (ecPerBlock - misdecodeProtection(matrix.version, matrix.errorCorrection)) / 2,
  );
  return { damaged: Math.max(0, ...perBlock), correctable };
}

export interface DesignProblem {
  field: string;
  message: string;
}

const ratioText = (ratio: number) => `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;

/** Every dark colour the modules are drawn in, with the field that sets it. */
function darkColours(style: QrStyle | null | undefined, foreground: Rgb) {
  const out: Array<{ field: string; rgb: Rgb }> = [];
  // A gradient's colours are checked all along its axis, below.
  if (!style?.gradient) out.push({ field: 'foreground', rgb: foreground });
  if (style?.corners?.frame?.color) {
    out.push({ field: 'style.corners.frame.color', rgb: rgbOf(style.corners.frame.color) });
  }
  if (style?.corners?.ball?.color) {
    out.push({ field: 'style.corners.ball.color', rgb: rgbOf(style.corners.ball.color) });
  }
  return out;
}

/** Samples along a gradient's axis: a blend of two good colours may still pass too close. */
const GRADIENT_SAMPLES = 20;

/**
 * Why this design would not scan, naming the part to change; undefined when it reads. The worker
 * still decodes every render: this refuses at once what the decode would only catch later.
 */
export function designProblem(options: {
  style: QrStyle | null | undefined;
  foreground: Rgb;
  background: Rgb;
  matrix: Matrix;
  hasLogo: boolean;
}): DesignProblem | undefined {
  const { style, background } = options;
  for (const { field, rgb } of darkColours(style, options.foreground)) {
    const problem = colourProblem(rgb, background);
    if (problem && field === 'foreground') return { field, message: problem };
    if (problem) {
      return { field, message: problem.replace(/^foreground/, `${field} (${formatRgb(rgb)})`) };
    }
  }
  const gradient = style?.gradient;
  if (gradient) {
    const colours = gradient.colors.map(rgbOf);
    const stops = colours.map((rgb, i) => ({ offset: i / (colours.length - 1), rgb }));
    for (let i = 0; i <= GRADIENT_SAMPLES; i += 1) {
      const rgb = colourAt(stops, i / GRADIENT_SAMPLES);
      const ratio = contrastRatio(rgb, background);
      if (ratio < MIN_CONTRAST || colourProblem(rgb, background)) {
        return {
          field: 'style.gradient',
          message: `style.gradient crosses below the contrast a scanner needs: at ${Math.round((100 * i) / GRADIENT_SAMPLES)}% of its axis it is ${formatRgb(rgb)}, ${ratioText(ratio)} against the background; at least ${MIN_CONTRAST}:1 is needed all along for the code to scan`,
        };
      }
    }
  }
  const text = style?.frame?.text;
  if (text) {
    const missing = missingGlyphs(text.slice(0, MAX_FRAME_TEXT));
    if (missing.length) {
      return {
        field: 'style.frame.text',
        message: `style.frame.text has characters the frame font cannot draw: ${missing.join(' ')}`,
      };
    }
  }
  if (options.hasLogo) {
    const share = style?.logoSize ?? DEFAULT_LOGO_SIZE;
    const side = plateModules(options.matrix.modules, share);
    const budget = logoBudget(options.matrix, {
      start: (options.matrix.modules - side) / 2,
      modules: side,
    });
    if (budget.damaged > budget.correctable) {
      const level = options.matrix.errorCorrection;
      return {
        // The part to change: the size the owner chose, else the logo itself.
        field: style?.logoSize === undefined ? 'logo' : 'style.logoSize',
        message: `logo covers ${budget.damaged} codewords of an error-correction block that recovers ${budget.correctable} at level ${level}: use ${level === 'H' ? '' : 'style.errorCorrection H, '}a smaller style.logoSize, or no logo`,
      };
    }
  }
  return undefined;
}
