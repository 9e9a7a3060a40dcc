import { expect } from 'chai';
import sharp from 'sharp';
import type { QrStyle } from '../../src/qr-codes/design/style';
import { DESIGNS } from '../support/qr-designs';
import { qrMatrix } from '../../src/qr-codes/design/matrix';
import { designProblem, logoBudget } from '../../src/qr-codes/design/readability';
import { plateModules } from '../../src/qr-codes/design/design';
import { renderQr, type RenderInput } from '../../workers/qr-render/render-qr';
import { readWithZxing } from '../../src/qr-codes/design/decode';
import { decodeImage, solidLogo } from '../support/qr';

const black = { r: 0, g: 0, b: 0 };
const white = { r: 255, g: 255, b: 255 };
const payload = 'https://linkqr.test/s/Ds9gN2x1';

/** ZXing over an image's grey pixels (the second decoder of the tests; jsQR is the first). */
async function zxingText(bytes: Buffer): Promise<string | null> {
  const { data, info } = await sharp(bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
  return readWithZxing(new Uint8ClampedArray(data), info.width, info.height);
}

describe('QR designs', () => {
  let logo: Buffer;
  before(async () => {
    logo = await solidLogo({ r: 220, g: 30, b: 30 });
  });

  for (const [what, style] of DESIGNS) {
    it(`draws ${what} as shapes; its PNG and rasterised SVG decode to the payload`, async () => {
      const input: RenderInput = {
        payload,
        size: 512,
        foreground: black,
        background: white,
        style,
      };
      const { png, svg } = await renderQr({ ...input, logo });
      expect((await decodeImage(png)).text).to.equal(payload);
      expect(await zxingText(png)).to.equal(payload);
      expect(svg.toString()).to.match(/^<svg [^>]*viewBox="0 0 [\d.]+ [\d.]+"/);
      expect(svg.toString()).to.not.include('<image x="0"');
      expect((await decodeImage(await sharp(svg).png().toBuffer())).text).to.equal(payload);
    });
  }

  it('draws the gradient as an SVG gradient, the frame text as outlines (no font needed)', async () => {
    const style: QrStyle = {
      gradient: { type: 'linear', colors: ['#000000', '#0d47a1'] },
      frame: { type: 'banner-bottom', text: 'Menu' },
    };
    const { svg, png } = await renderQr({
      payload,
      size: 400,
      foreground: black,
      background: white,
      style,
    });
    const text = svg.toString();
    expect(text).to.include('<linearGradient');
    expect(text).to.not.include('<text');
    expect(text).to.not.include('font');
    const meta = await sharp(png).metadata();
    // The banner adds height below the symbol.
    expect(meta.width).to.equal(400);
    expect(meta.height).to.be.greaterThan(400);
  });

  it('keeps plain codes on the 1-bit fast path, with the style margin and error correction', async () => {
    const { png } = await renderQr({
      payload,
      size: 400,
      foreground: black,
      background: white,
      style: { margin: 2, errorCorrection: 'L' },
    });
    const meta = await sharp(png).metadata();
    expect([
      meta.channels,
      (meta as { paletteBitDepth?: number }).paletteBitDepth ?? 1,
    ]).to.deep.equal([3, 1]);
    expect((await decodeImage(png)).text).to.equal(payload);
  });

  describe('refusals', () => {
    const check = (style: QrStyle, hasLogo = false, level: 'L' | 'M' | 'Q' | 'H' = 'M') =>
      designProblem({
        style,
        foreground: black,
        background: white,
        matrix: qrMatrix(payload, style.errorCorrection ?? level, 0)!,
        hasLogo,
      });

    it('names a gradient stop without contrast', () => {
      expect(check({ gradient: { type: 'linear', colors: ['#000000', '#dddddd'] } })).to.deep.equal(
        {
          field: 'style.gradient',
          message:
            'style.gradient crosses below the contrast a scanner needs: at 70% of its axis it is rgb(155,155,155), 2.77:1 against the background; at least 3:1 is needed all along for the code to scan',
        },
      );
    });

    it('names a gradient that crosses the background in the middle', () => {
      const problem = check({
        gradient: { type: 'radial', colors: ['#000000', '#f0f0f0', '#000000'] },
      });
      expect(problem?.field).to.equal('style.gradient');
      expect(problem?.message).to.match(
        /^style\.gradient crosses below .* at 35% of its axis it is rgb\(168,168,168\)/,
      );
    });

    it('names corner colours without contrast', () => {
      expect(check({ corners: { ball: { color: '#eeeeee' } } })).to.deep.equal({
        field: 'style.corners.ball.color',
        message:
          'style.corners.ball.color (rgb(238,238,238)) and background contrast is 1.16:1; at least 3:1 is needed for the code to scan',
      });
    });

    it('refuses a logo covering more codewords than a block corrects, and accepts it at H', () => {
      expect(check({ errorCorrection: 'L' }, true)).to.deep.equal({
        field: 'logo',
        message:
          'logo covers 6 codewords of an error-correction block that recovers 4 at level L: use style.errorCorrection H, a smaller style.logoSize, or no logo',
      });
      expect(check({ errorCorrection: 'H' }, true)).to.equal(undefined);
      // A size the owner chose is the part to change.
      expect(check({ errorCorrection: 'M', logoSize: 0.4 }, true)?.field).to.equal(
        'style.logoSize',
      );
    });

    it('counts the plate against the budget of ISO/IEC 18004 (version 3-M: 26 EC codewords a block)', () => {
      const matrix = qrMatrix('x'.repeat(40), 'M', 0)!;
      expect(matrix.version).to.equal(3);
      const side = plateModules(matrix.modules, 0.25);
      const budget = logoBudget(matrix, { start: (matrix.modules - side) / 2, modules: side });
      expect(budget.correctable).to.equal(13);
      expect(budget.damaged).to.be.within(1, 13);
    });

    it('names frame text the font cannot draw', () => {
      expect(check({ frame: { type: 'box', text: 'Scan 扫码' } })).to.deep.equal({
        field: 'style.frame.text',
        message: 'style.frame.text has characters the frame font cannot draw: 扫 码',
      });
    });
  });
});
