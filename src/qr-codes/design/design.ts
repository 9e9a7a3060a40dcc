import type { Rgb } from '../qr-colors';
import { circle, rect, roundedRect, type Paint, type Radii, type Seg, type Shape } from './path';
import { DEFAULT_LOGO_SIZE, marginOf, rgbOf, type CornerShape, type QrStyle } from './style';
import { textOutline } from './text';

export interface DesignInput {
  /** The module matrix, one byte per module, row by row. */
  data: Uint8Array;
  modules: number;
  style: QrStyle | null | undefined;
  foreground: Rgb;
  background: Rgb;
  hasLogo: boolean;
}

export interface Box {
  x: number;
  y: number;
  size: number;
}

/** A code as vector shapes in module units (y down): SVG, PDF, EPS and PNG are drawn from it. */
export interface Design {
  width: number;
  height: number;
  background: Rgb;
  shapes: Shape[];
  /** Where the symbol's first module lies, and its side in modules. */
  symbol: Box;
  margin: number;
  /** The cleared square in module coordinates of the symbol (no dark module is drawn in it). */
  plate: { start: number; modules: number };
  /** Where the logo goes, inside the plate with half a module of margin. */
  logo?: Box;
}

const FRAME_BORDER = 1;
const BANNER = 5;
const BOX_TEXT_BAND = 4;

/** Odd, like the symbol's side, so the plate sits exactly on the centre module. */
export function plateModules(modules: number, share: number): number {
  const plate = Math.max(3, Math.round(modules * share));
  return plate % 2 === 0 ? plate - 1 : plate;
}

function inFinder(x: number, y: number, n: number): boolean {
  return (x < 7 && y < 7) || (x >= n - 7 && y < 7) || (x < 7 && y >= n - 7);
}

function dotPaint(input: DesignInput, symbol: Box): Paint {
  const g = input.style?.gradient;
  if (!g) return { kind: 'solid', rgb: input.foreground };
  const colours = g.colors.map(rgbOf);
  const stops = colours.map((rgb, i) => ({ offset: i / (colours.length - 1), rgb }));
  const cx = symbol.x + symbol.size / 2;
  const cy = symbol.y + symbol.size / 2;
  if (g.type === 'radial')
    return { kind: 'radial', cx, cy, r: (symbol.size / 2) * Math.SQRT2, stops };
  const angle = ((g.rotation ?? 0) * Math.PI) / 180;
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const half = (symbol.size / 2) * (Math.abs(cos) + Math.abs(sin));
  return {
    kind: 'linear',
    x1: cx - cos * half,
    y1: cy - sin * half,
    x2: cx + cos * half,
    y2: cy + sin * half,
    stops,
  };
}

/** The data modules' outlines in the chosen dot style. */
function dotSegs(
  style: QrStyle['dots'],
  isDot: (x: number, y: number) => boolean,
  n: number,
  o: Box,
) {
  const segs: Seg[] = [];
  for (let y = 0; y < n; y += 1) {
    for (let x = 0; x < n; x += 1) {
      if (!isDot(x, y)) continue;
      const [px, py] = [o.x + x, o.y + y];
      if (!style || style === 'square') {
        let end = x;
        while (end + 1 < n && isDot(end + 1, y)) end += 1;
        segs.push(...rect(px, py, end - x + 1, 1));
        x = end;
        continue;
      }
      if (style === 'dots') {
        segs.push(...circle(px + 0.5, py + 0.5, 0.5));
        continue;
      }
      const up = y > 0 && isDot(x, y - 1);
      const down = y < n - 1 && isDot(x, y + 1);
      const left = x > 0 && isDot(x - 1, y);
      const right = x < n - 1 && isDot(x + 1, y);
      const r = style === 'rounded' ? 0.3 : 0.5;
      const round = (a: boolean, b: boolean) => (a || b ? 0 : r);
      let radii: Radii = [round(up, left), round(up, right), round(down, right), round(down, left)];
      if (style === 'classy') radii = [radii[0], 0, radii[2], 0];
      segs.push(...roundedRect(px, py, 1, 1, radii));
    }
  }
  return segs;
}

function cornerSquare(
  shape: CornerShape | undefined,
  x: number,
  y: number,
  side: number,
  r: number,
) {
  if (shape === 'circle') return circle(x + side / 2, y + side / 2, side / 2);
  if (shape === 'rounded') return roundedRect(x, y, side, side, [r, r, r, r]);
  return rect(x, y, side, side);
}

function finderShapes(input: DesignInput, symbol: Box, paint: Paint): Shape[] {
  const corners = input.style?.corners;
  const framePaint: Paint = corners?.frame?.color
    ? { kind: 'solid', rgb: rgbOf(corners.frame.color) }
    : paint;
  const ballPaint: Paint = corners?.ball?.color
    ? { kind: 'solid', rgb: rgbOf(corners.ball.color) }
    : paint;
  const n = symbol.size;
  const rings: Seg[] = [];
  const balls: Seg[] = [];
  for (const [fx, fy] of [
    [0, 0],
    [n - 7, 0],
    [0, n - 7],
  ] as const) {
    const x = symbol.x + fx;
    const y = symbol.y + fy;
    const shape = corners?.frame?.shape;
    rings.push(...cornerSquare(shape, x, y, 7, 2), ...cornerSquare(shape, x + 1, y + 1, 5, 1.4));
    balls.push(...cornerSquare(corners?.ball?.shape, x + 2, y + 2, 3, 0.9));
  }
  return [
    { segs: rings, paint: framePaint, rule: 'evenodd' },
    { segs: balls, paint: ballPaint, rule: 'nonzero' },
  ];
}

/** Canvas, symbol position and the frame's own shapes. */
function layout(input: DesignInput, side: number, margin: number) {
  const frame = input.style?.frame;
  const shapes: Shape[] = [];
  if (!frame || frame.type === 'none') {
    return { width: side, height: side, symbol: { x: margin, y: margin }, shapes };
  }
  const t = FRAME_BORDER;
  const text = frame.text ?? '';
  const colour = frame.color ? rgbOf(frame.color) : input.foreground;
  const band = frame.type === 'box' ? (text ? BOX_TEXT_BAND : 0) : BANNER;
  const width = side + 2 * t;
  const height = side + 2 * t + band;
  const top = frame.type === 'banner-top' ? band : 0;
  const hole = rect(t, t + top, side, frame.type === 'box' ? height - 2 * t : side);
  shapes.push({
    segs: [...roundedRect(0, 0, width, height, [1, 1, 1, 1]), ...hole],
    paint: { kind: 'solid', rgb: colour },
    rule: 'evenodd',
  });
  if (text) {
    const textRgb = frame.textColor
      ? rgbOf(frame.textColor)
      : frame.type === 'box'
        ? colour
        : input.background;
    const bandTop = frame.type === 'banner-top' ? 0 : t + side;
    const bandHeight = frame.type === 'box' ? band - t : band + t;
    const cap = frame.type === 'box' ? 1.8 : 2.2;
    const baseline = bandTop + (bandHeight + cap) / 2;
    shapes.push({
      segs: textOutline(text, width / 2, baseline, cap, width - 2 * (t + 1)),
      paint: { kind: 'solid', rgb: textRgb },
      rule: 'nonzero',
    });
  }
  return { width, height, symbol: { x: t + margin, y: t + top + margin }, shapes };
}

/** Lays a module matrix out as the style's shapes. */
export function buildDesign(input: DesignInput): Design {
  const n = input.modules;
  const margin = marginOf(input.style);
  const box = layout(input, n + 2 * margin, margin);
  const symbol: Box = { ...box.symbol, size: n };
  const share = input.style?.logoSize ?? DEFAULT_LOGO_SIZE;
  const plateSide = input.hasLogo ? plateModules(n, share) : 0;
  const plate = { start: (n - plateSide) / 2, modules: plateSide };
  const inPlate = (x: number, y: number) =>
    x >= plate.start &&
    x < plate.start + plateSide &&
    y >= plate.start &&
    y < plate.start + plateSide;
  const isDot = (x: number, y: number) =>
    Boolean(input.data[y * n + x]) && !inFinder(x, y, n) && !inPlate(x, y);
  const paint = dotPaint(input, symbol);
  const shapes: Shape[] = [
    ...box.shapes,
    { segs: dotSegs(input.style?.dots, isDot, n, symbol), paint, rule: 'nonzero' },
    ...finderShapes(input, symbol, paint),
  ];
  const design: Design = {
    width: box.width,
    height: box.height,
    background: input.background,
    shapes,
    symbol,
    margin,
    plate,
  };
  if (plateSide > 0) {
    design.logo = {
      x: symbol.x + plate.start + 0.5,
      y: symbol.y + plate.start + 0.5,
      size: plateSide - 1,
    };
  }
  return design;
}
