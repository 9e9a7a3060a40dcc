import { decode } from 'fast-png';
import type { Rgb } from '../qr-colors';
import type { Design } from './design';
import type { Paint, Seg, Stop } from './path';
import { toCmyk } from './print-colour';
import type { PrintOptions } from './pdf';

const f = (v: number) => String(Math.round(v * 1000) / 1000);

function setColour(rgb: Rgb, cmyk: boolean | undefined): string {
  if (cmyk)
    return `${toCmyk(rgb)
      .map((v) => f(v / 100))
      .join(' ')} setcmykcolor`;
  return `${[rgb.r, rgb.g, rgb.b].map((v) => f(v / 255)).join(' ')} setrgbcolor`;
}

/** PostScript's y runs up: flip inside the design's height. */
function pathOps(segs: Seg[], height: number): string {
  const y = (v: number) => f(height - v);
  return segs
    .map((s) => {
      if (s[0] === 'M') return `${f(s[1])} ${y(s[2])} moveto`;
      if (s[0] === 'L') return `${f(s[1])} ${y(s[2])} lineto`;
      if (s[0] === 'C') {
        return `${f(s[1])} ${y(s[2])} ${f(s[3])} ${y(s[4])} ${f(s[5])} ${y(s[6])} curveto`;
      }
      return 'closepath';
    })
    .join('\n');
}

/** A type 2 (two stops) or type 3 stitching (three) function between the stops' colours. */
function shadingFunction(stops: Stop[], cmyk: boolean | undefined): string {
  const components = (rgb: Rgb) =>
    cmyk ? toCmyk(rgb).map((v) => v / 100) : [rgb.r / 255, rgb.g / 255, rgb.b / 255];
  const interpolate = (a: Stop, b: Stop) =>
    `<< /FunctionType 2 /Domain [0 1] /C0 [${components(a.rgb).map(f).join(' ')}] /C1 [${components(b.rgb).map(f).join(' ')}] /N 1 >>`;
  const parts: string[] = [];
  for (let i = 1; i < stops.length; i += 1) {
    parts.push(interpolate(stops[i - 1] as Stop, stops[i] as Stop));
  }
  if (parts.length === 1) return parts[0] as string;
  const bounds = stops.slice(1, -1).map((s) => f(s.offset));
  const encode = parts.map(() => '0 1').join(' ');
  return `<< /FunctionType 3 /Domain [0 1] /Functions [${parts.join(' ')}] /Bounds [${bounds.join(' ')}] /Encode [${encode}] >>`;
}

function fill(paint: Paint, path: string, rule: string, height: number, cmyk?: boolean): string {
  if (paint.kind === 'solid') return `${setColour(paint.rgb, cmyk)}\n${path}\n${rule}`;
  const space = cmyk ? '/DeviceCMYK' : '/DeviceRGB';
  const clip = rule === 'eofill' ? 'eoclip' : 'clip';
  const shading =
    paint.kind === 'linear'
      ? `/ShadingType 2 /Coords [${[paint.x1, height - paint.y1, paint.x2, height - paint.y2].map(f).join(' ')}]`
      : `/ShadingType 3 /Coords [${[paint.cx, height - paint.cy, 0, paint.cx, height - paint.cy, paint.r].map(f).join(' ')}]`;
  return `gsave\n${path}\n${clip} newpath\n<< ${shading} /ColorSpace ${space} /Function ${shadingFunction(paint.stops, cmyk)} /Extend [true true] >> shfill\ngrestore`;
}

/** The logo's pixels as an RGB image operator with its hex data inline. */
function logoImage(design: Design, png: Buffer, height: number): string {
  const logo = design.logo;
  if (!logo) return '';
  const image = decode(png);
  const { width: w, height: h, channels } = image;
  const hex: string[] = [];
  let line = '';
  for (let i = 0; i < w * h; i += 1) {
    for (let c = 0; c < 3; c += 1) {
      const v = Number(image.data[i * channels + Math.min(c, channels - 1)] ?? 0);
      line += (image.depth === 16 ? v >> 8 : v).toString(16).padStart(2, '0');
    }
    if (line.length >= 72) {
      hex.push(line);
      line = '';
    }
  }
  if (line) hex.push(line);
  return [
    'gsave',
    `${f(logo.x)} ${f(height - logo.y - logo.size)} translate ${f(logo.size)} ${f(logo.size)} scale`,
    '/DeviceRGB setcolorspace',
    `<< /ImageType 1 /Width ${w} /Height ${h} /BitsPerComponent 8 /Decode [0 1 0 1 0 1] /ImageMatrix [${w} 0 0 -${h} 0 ${h}] /DataSource currentfile /ASCIIHexDecode filter >> image`,
    ...hex,
    '>',
    'grestore',
  ].join('\n');
}

/**
 * The design as Encapsulated PostScript (level 3, for the gradients' `shfill`), written straight
 * from the shapes: every module, corner and letter a filled path.
 */
export function designEps(design: Design, options: PrintOptions): Buffer {
  const k = options.widthPt / design.width;
  const bleed = (options.bleedMm ?? 0) * (72 / 25.4);
  const w = options.widthPt + 2 * bleed;
  const h = design.height * k + 2 * bleed;
  const H = design.height;
  const body = design.shapes.map((shape) =>
    fill(
      shape.paint,
      pathOps(shape.segs, H),
      shape.rule === 'evenodd' ? 'eofill' : 'fill',
      H,
      options.cmyk,
    ),
  );
  const lines = [
    '%!PS-Adobe-3.0 EPSF-3.0',
    `%%BoundingBox: 0 0 ${Math.ceil(w)} ${Math.ceil(h)}`,
    `%%HiResBoundingBox: 0 0 ${f(w)} ${f(h)}`,
    '%%Title: QR code',
    '%%Creator: linkqr',
    '%%LanguageLevel: 3',
    '%%Pages: 1',
    '%%EndComments',
    'save',
    `${setColour(design.background, options.cmyk)}`,
    `0 0 ${f(w)} ${f(h)} rectfill`,
    `${f(bleed)} ${f(bleed)} translate ${f(k)} ${f(k)} scale`,
    ...body,
    options.logoPng ? logoImage(design, options.logoPng, H) : '',
    'restore',
    'showpage',
    '%%EOF',
    '',
  ];
  return Buffer.from(lines.filter((l) => l !== '').join('\n') + '\n', 'latin1');
}
