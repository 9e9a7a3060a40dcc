export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export const DEFAULT_BACKGROUND = 'rgb(255,255,255)';
export const DEFAULT_FOREGROUND = 'rgb(0,0,0)';

/**
 * WCAG 2.1 success criterion 1.4.11 asks 3:1 of graphical objects a person must perceive, and a
 * QR symbol is one. It is a floor, not a guarantee: every render is still decoded by the worker
 * before it is marked ready, which catches what a ratio alone cannot.
 */
export const MIN_CONTRAST = 3;

const RGB = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i;
const HEX = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;

/** `rgb(r,g,b)` with 0..255 each (spaces allowed) or `#rrggbb`; undefined for anything else. */
export function parseRgb(value: string): Rgb | undefined {
  const hex = HEX.exec(value.trim());
  if (hex) {
    const [r, g, b] = [hex[1], hex[2], hex[3]].map((h) => parseInt(h ?? '0', 16));
    return { r: r ?? 0, g: g ?? 0, b: b ?? 0 };
  }
  const match = RGB.exec(value.trim());
  if (!match) return undefined;
  const [r, g, b] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (r > 255 || g > 255 || b > 255) return undefined;
  return { r, g, b };
}

export function formatRgb({ r, g, b }: Rgb): string {
  return `rgb(${r},${g},${b})`;
}

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
export function relativeLuminance({ r, g, b }: Rgb): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG contrast ratio, 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Why this pair cannot be printed as a QR code, or undefined when it can. A light-on-dark
 * (reflectance-reversed) symbol is refused too: ISO/IEC 18004 allows it, but ZXing and many
 * camera apps do not try the inverted image by default, so such a code would pass our decode
 * check and still fail for a good share of people scanning it.
 */
export function colourProblem(foreground: Rgb, background: Rgb): string | undefined {
  const ratio = contrastRatio(foreground, background);
  if (ratio < MIN_CONTRAST) {
    return `foreground and background contrast is ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1; at least ${MIN_CONTRAST}:1 is needed for the code to scan`;
  }
  if (relativeLuminance(foreground) > relativeLuminance(background)) {
    return 'foreground must be darker than background: many scanners cannot read light-on-dark codes';
  }
  return undefined;
}
