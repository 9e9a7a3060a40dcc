import { formatRgb } from '../qr-colors';
import type { Design } from './design';
import { svgPathData, type Paint } from './path';

function gradientDef(paint: Paint, id: string): string {
  if (paint.kind === 'solid') return '';
  const stops = paint.stops
    .map((s) => `<stop offset="${s.offset}" stop-color="${formatRgb(s.rgb)}"/>`)
    .join('');
  if (paint.kind === 'linear') {
    return `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${paint.x1}" y1="${paint.y1}" x2="${paint.x2}" y2="${paint.y2}">${stops}</linearGradient>`;
  }
  return `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${paint.cx}" cy="${paint.cy}" r="${paint.r}">${stops}</radialGradient>`;
}

/** Pixel height of a design drawn `width` pixels wide. */
export function pixelHeight(design: Design, width: number): number {
  return Math.round((width * design.height) / design.width);
}

/**
 * The SVG master: the design's shapes in module units, `width` pixels wide nominally; the logo
 * (already fitted, PNG) embedded as a data URI so the file stands alone.
 */
export function designSvg(design: Design, width: number, logoPng?: Buffer): string {
  const height = pixelHeight(design, width);
  const defs: string[] = [];
  const paths = design.shapes.map((shape, i) => {
    let fill = formatRgb(shape.paint.kind === 'solid' ? shape.paint.rgb : { r: 0, g: 0, b: 0 });
    if (shape.paint.kind !== 'solid') {
      defs.push(gradientDef(shape.paint, `g${i}`));
      fill = `url(#g${i})`;
    }
    const rule = shape.rule === 'evenodd' ? ' fill-rule="evenodd"' : '';
    return `<path d="${svgPathData(shape.segs)}" fill="${fill}"${rule}/>`;
  });
  const logo =
    design.logo && logoPng
      ? `<image x="${design.logo.x}" y="${design.logo.y}" width="${design.logo.size}" height="${design.logo.size}" href="data:image/png;base64,${logoPng.toString('base64')}"/>`
      : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${design.width} ${design.height}">` +
    (defs.length ? `<defs>${defs.join('')}</defs>` : '') +
    `<rect width="${design.width}" height="${design.height}" fill="${formatRgb(design.background)}"/>` +
    paths.join('') +
    logo +
    '</svg>'
  );
}
