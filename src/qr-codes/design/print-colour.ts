import type { Rgb } from '../qr-colors';

/** CMYK in percent, 0..100 each, as PDF and PostScript take them (scaled). */
export type Cmyk = [number, number, number, number];

/**
 * The naive device conversion (black generation from the darkest channel, full undercolour
 * removal): no ICC profile, so a printer's own profile applies. Pure black stays K only, which
 * is what a printer wants for the modules.
 */
export function toCmyk({ r, g, b }: Rgb): Cmyk {
  const [rr, gg, bb] = [r / 255, g / 255, b / 255];
  const k = 1 - Math.max(rr, gg, bb);
  if (k >= 1) return [0, 0, 0, 100];
  const part = (v: number) => Math.round(((1 - v - k) / (1 - k)) * 1000) / 10;
  return [part(rr), part(gg), part(bb), Math.round(k * 1000) / 10];
}
