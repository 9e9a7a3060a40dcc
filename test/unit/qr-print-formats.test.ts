import { expect } from 'chai';
import { PDFDocument, PDFName, PDFDict, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { buildDesign, type Design } from '../../src/qr-codes/design/design';
import { qrMatrix } from '../../src/qr-codes/design/matrix';
import { designEps } from '../../src/qr-codes/design/eps';
import { designPdf, MM } from '../../src/qr-codes/design/pdf';
import { errorCorrectionOf } from '../../src/qr-codes/design/style';
import { decodeImage } from '../support/qr';
import { rasterise } from '../support/ghostscript';
import { DESIGNS } from '../support/qr-designs';

const payload = 'https://linkqr.test/s/Pr1ntM3x';

function designFor(style: (typeof DESIGNS)[number][1]): Design {
  const matrix = qrMatrix(payload, errorCorrectionOf(style, false))!;
  return buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style,
    foreground: { r: 0, g: 0, b: 0 },
    background: { r: 255, g: 255, b: 255 },
    hasLogo: false,
  });
}

/** The page's content stream, inflated. */
async function contentOf(pdf: Buffer): Promise<{ doc: PDFDocument; text: string }> {
  const doc = await PDFDocument.load(pdf);
  const page = doc.getPage(0);
  const contents = page.node.Contents();
  const stream = doc.context.lookup(contents as never) as PDFRawStream;
  return { doc, text: Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') };
}

describe('QR print formats (PDF, EPS)', function () {
  // Ghostscript in WebAssembly takes a few seconds to start and draw.
  this.timeout(120_000);

  it('draws every design as a vector PDF and an EPS that a RIP rasterises to the payload', async () => {
    const designs = DESIGNS.map(([, style]) => designFor(style));
    const pdfs = await Promise.all(designs.map((d) => designPdf(d, { widthPt: 300 })));
    const epss = designs.map((d) => designEps(d, { widthPt: 300 }));
    for (const [kind, files] of [
      ['pdf', pdfs],
      ['eps', epss],
    ] as const) {
      const pngs = await rasterise(files, kind);
      for (const [i, png] of pngs.entries()) {
        const what = `${DESIGNS[i]?.[0]} as ${kind}`;
        expect((await decodeImage(png)).text, what).to.equal(payload);
      }
    }
  });

  it('writes the modules as paths, no image; in CMYK when asked, with a bleed and a TrimBox', async () => {
    const design = designFor({ gradient: { type: 'linear', colors: ['#000000', '#0d47a1'] } });
    const rgb = await contentOf(await designPdf(design, { widthPt: 300 }));
    expect(rgb.doc.getPageCount()).to.equal(1);
    const resources = rgb.doc.getPage(0).node.Resources();
    expect(resources?.lookupMaybe(PDFName.of('XObject'), PDFDict)).to.equal(undefined);
    // Paths filled: moveto, curveto/lineto, fill.
    expect(rgb.text)
      .to.match(/ m\n/)
      .and.match(/ l\n/)
      .and.match(/\nf\n|\nf\*\n/);
    expect(rgb.text).to.include('/DeviceRGB cs');
    expect(rgb.text).to.not.include('DeviceCMYK');

    const pdf = await designPdf(design, { widthPt: 300, cmyk: true, bleedMm: 3 });
    const cmyk = await contentOf(pdf);
    expect(cmyk.text).to.include('/DeviceCMYK cs');
    expect(cmyk.text).to.not.include('DeviceRGB');
    // White paper is no ink; the gradient's shading is defined in CMYK too.
    expect(cmyk.text).to.include('0 0 0 0 scn');
    expect(pdf.toString('latin1')).to.match(/\/ColorSpace \/DeviceCMYK/);
    expect(pdf.toString('latin1')).to.not.match(/DeviceRGB/);
    const page = cmyk.doc.getPage(0);
    const bleed = 3 * MM;
    expect(page.getWidth()).to.be.closeTo(300 + 2 * bleed, 0.01);
    const trim = page.getTrimBox();
    expect(trim.x).to.be.closeTo(bleed, 0.001);
    expect(trim.y).to.be.closeTo(bleed, 0.001);
    expect(trim.width).to.be.closeTo(300, 0.001);
    expect((await decodeImage((await rasterise([pdf], 'pdf'))[0]!)).text).to.equal(payload);
  });

  it('gives the EPS a bounding box of the drawing, and CMYK colours when asked', async () => {
    const design = designFor({ frame: { type: 'banner-top', text: 'SCAN ME' } });
    const eps = designEps(design, { widthPt: 300, cmyk: true }).toString('latin1');
    expect(eps.split('\n')[0]).to.equal('%!PS-Adobe-3.0 EPSF-3.0');
    const box = /%%BoundingBox: (\d+) (\d+) (\d+) (\d+)/.exec(eps);
    expect(box?.slice(1).map(Number)).to.deep.equal([
      0,
      0,
      300,
      Math.ceil((300 * design.height) / design.width),
    ]);
    expect(eps).to.include('setcmykcolor').and.not.include('setrgbcolor');
    expect(eps.trimEnd().endsWith('%%EOF')).to.equal(true);
  });
});
