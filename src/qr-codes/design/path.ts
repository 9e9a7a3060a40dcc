import type { Rgb } from '../qr-colors';

/** Absolute path commands in design units (modules), y down: all SVG, PDF and EPS need. */
export type Seg =
  | ['M', number, number]
  | ['L', number, number]
  | ['C', number, number, number, number, number, number]
  | ['Z'];

export interface Stop {
  offset: number;
  rgb: Rgb;
}

export type Paint =
  | { kind: 'solid'; rgb: Rgb }
  | { kind: 'linear'; x1: number; y1: number; x2: number; y2: number; stops: Stop[] }
  | { kind: 'radial'; cx: number; cy: number; r: number; stops: Stop[] };

export interface Shape {
  segs: Seg[];
  paint: Paint;
  rule: 'nonzero' | 'evenodd';
}

/** A cubic Bézier's handle length for a quarter circle of radius 1. */
const KAPPA = 0.5522847498;

/** Corner radii: top-left, top-right, bottom-right, bottom-left. */
export type Radii = [number, number, number, number];

/** A rectangle with a radius per corner, clockwise from the top-left. */
export function roundedRect(x: number, y: number, w: number, h: number, radii: Radii): Seg[] {
  const [tl, tr, br, bl] = radii;
  const k = (r: number) => r * (1 - KAPPA);
  const out: Seg[] = [
    ['M', x + tl, y],
    ['L', x + w - tr, y],
  ];
  if (tr) out.push(['C', x + w - k(tr), y, x + w, y + k(tr), x + w, y + tr]);
  out.push(['L', x + w, y + h - br]);
  if (br) out.push(['C', x + w, y + h - k(br), x + w - k(br), y + h, x + w - br, y + h]);
  out.push(['L', x + bl, y + h]);
  if (bl) out.push(['C', x + k(bl), y + h, x, y + h - k(bl), x, y + h - bl]);
  out.push(['L', x, y + tl]);
  if (tl) out.push(['C', x, y + k(tl), x + k(tl), y, x + tl, y]);
  out.push(['Z']);
  return out;
}

export function rect(x: number, y: number, w: number, h: number): Seg[] {
  return [['M', x, y], ['L', x + w, y], ['L', x + w, y + h], ['L', x, y + h], ['Z']];
}

export function circle(cx: number, cy: number, r: number): Seg[] {
  return roundedRect(cx - r, cy - r, 2 * r, 2 * r, [r, r, r, r]);
}

const n = (v: number) => String(Math.round(v * 1000) / 1000);

/** SVG path data. */
export function svgPathData(segs: Seg[]): string {
  let out = '';
  for (const s of segs) {
    if (s[0] === 'Z') out += 'Z';
    else
      out +=
        s[0] +
        s
          .slice(1)
          .map((v) => n(v as number))
          .join(' ');
  }
  return out;
}

/** Linear interpolation of a gradient's colour at `t` (0..1). */
export function colourAt(stops: Stop[], t: number): Rgb {
  const first = stops[0] as Stop;
  if (t <= first.offset) return first.rgb;
  for (let i = 1; i < stops.length; i += 1) {
    const a = stops[i - 1] as Stop;
    const b = stops[i] as Stop;
    if (t <= b.offset) {
      const f = (t - a.offset) / (b.offset - a.offset || 1);
      const mix = (p: number, q: number) => Math.round(p + (q - p) * f);
      return { r: mix(a.rgb.r, b.rgb.r), g: mix(a.rgb.g, b.rgb.g), b: mix(a.rgb.b, b.rgb.b) };
    }
  }
  return (stops[stops.length - 1] as Stop).rgb;
}
