import PDFDocument from 'pdfkit';
import type { Rgb } from '../qr-colors';
import type { Design } from './design';
import type { Paint, Seg } from './path';
import { toCmyk } from './print-colour';

export interface PrintOptions {
  /** Width of the drawing in points (1/72 in), bleed excluded. */
  widthPt: number;
  cmyk?: boolean;
  /** Bleed on every side in millimetres: the background runs into it. */
  bleedMm?: number;
  /** The placed logo (PNG), drawn in its box. */
  logoPng?: Buffer | undefined;
  /** Fixed, so the same design gives the same bytes (and ETag). */
  date?: Date;
}

export const MM = 72 / 25.4;

type PdfColour = [number, number, number] | [number, number, number, number];

function colour(rgb: Rgb, cmyk: boolean | undefined): PdfColour {
  return cmyk ? toCmyk(rgb) : [rgb.r, rgb.g, rgb.b];
}

function trace(doc: PDFKit.PDFDocument, segs: Seg[]): void {
  for (const s of segs) {
    if (s[0] === 'M') doc.moveTo(s[1], s[2]);
    else if (s[0] === 'L') doc.lineTo(s[1], s[2]);
    else if (s[0] === 'C') doc.bezierCurveTo(s[1], s[2], s[3], s[4], s[5], s[6]);
    else doc.closePath();
  }
}

function fillOf(doc: PDFKit.PDFDocument, paint: Paint, cmyk: boolean | undefined) {
  if (paint.kind === 'solid') return colour(paint.rgb, cmyk);
  const gradient =
    paint.kind === 'linear'
      ? doc.linearGradient(paint.x1, paint.y1, paint.x2, paint.y2)
      : doc.radialGradient(paint.cx, paint.cy, 0, paint.cx, paint.cy, paint.r);
  // pdfkit takes colour arrays here as everywhere; its typings only list strings.
  for (const stop of paint.stops) {
    gradient.stop(stop.offset, colour(stop.rgb, cmyk) as unknown as string);
  }
  return gradient;
}

/**
 * The design as a vector PDF (pdfkit): every module, corner and letter a filled path, in RGB or
 * CMYK; only the logo, if any, is an image. With a bleed, the page grows by it on every side, the
 * background runs to the page edge and the TrimBox marks the cut.
 */
export function designPdf(design: Design, options: PrintOptions): Promise<Buffer> {
  const k = options.widthPt / design.width;
  const bleed = (options.bleedMm ?? 0) * MM;
  const w = options.widthPt + 2 * bleed;
  const h = design.height * k + 2 * bleed;
  const date = options.date ?? new Date(0);
  const doc = new PDFDocument({
    size: [w, h],
    margin: 0,
    compress: true,
    info: { Title: 'QR code', Producer: 'linkqr', Creator: 'linkqr', CreationDate: date },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const dictionary = (doc.page as unknown as { dictionary: { data: Record<string, unknown> } })
    .dictionary.data;
  dictionary.TrimBox = [bleed, bleed, w - bleed, h - bleed];
  dictionary.BleedBox = [0, 0, w, h];
  doc.rect(0, 0, w, h).fill(colour(design.background, options.cmyk));
  doc.save();
  doc.translate(bleed, bleed).scale(k);
  for (const shape of design.shapes) {
    trace(doc, shape.segs);
    doc.fill(
      fillOf(doc, shape.paint, options.cmyk),
      shape.rule === 'evenodd' ? 'even-odd' : 'non-zero',
    );
  }
  if (design.logo && options.logoPng) {
    const { x, y, size } = design.logo;
    doc.image(options.logoPng, x, y, { width: size, height: size });
  }
  doc.restore();
  doc.end();
  return done;
}
