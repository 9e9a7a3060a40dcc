import { expect } from 'chai';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { QUIET_ZONE } from '../../src/qr-codes/qr-symbol';
import { renderQr, RenderError, type RenderInput } from '../../workers/qr-render/render-qr';
import {
  createRenderPool,
  RenderFailure,
  type RenderPool,
} from '../../workers/qr-render/render-pool';
import { UnreadableImageError } from '../../workers/qr-render/verify-png';
import { decodeImage, pixelAt, solidLogo } from '../support/qr';
import { rejection } from '../support/rejection';

const navy = { r: 10, g: 20, b: 90 };
const cream = { r: 250, g: 245, b: 220 };

/** Where module (x, y) of a symbol of `modules` per side lands in an image of `size` px. */
function modulePixel(size: number, modules: number, x: number, y: number): [number, number] {
  const scale = Math.floor(size / (modules + 2 * QUIET_ZONE));
  const offset = Math.floor((size - scale * modules) / 2);
  return [offset + x * scale + Math.floor(scale / 2), offset + y * scale + Math.floor(scale / 2)];
}

describe('QR rendering', () => {
  const input: RenderInput = {
    payload: 'https://linkqr.test/s/Ab12Cd34',
    size: 400,
    foreground: navy,
    background: cream,
  };

  it('draws a PNG of the requested size that decodes to the payload, in the given colours', async () => {
    const { png } = await renderQr(input);
    const meta = await sharp(png).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).to.deep.equal([
      'png',
      400,
      400,
      3,
    ]);
    const { text, version } = await decodeImage(png);
    expect(text).to.equal(input.payload);
    const modules = 17 + 4 * version;
    expect(await pixelAt(png, 1, 1)).to.deep.equal([250, 245, 220]); // quiet zone
    const finderCorner = modulePixel(400, modules, 0, 0);
    const finderRing = modulePixel(400, modules, 1, 1);
    expect(await pixelAt(png, ...finderCorner)).to.deep.equal([10, 20, 90]);
    expect(await pixelAt(png, ...finderRing)).to.deep.equal([250, 245, 220]);
  });

  it('draws the same picture as SVG, pixel for pixel once rasterised, logo included', async () => {
    const logo = await solidLogo({ r: 220, g: 30, b: 30 });
    const { png, svg } = await renderQr({ ...input, logo });
    const text = svg.toString();
    expect(text).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="400" height="400"/);
    expect(text).to.include('fill="rgb(250,245,220)"').and.include('fill="rgb(10,20,90)"');
    expect(text).to.include('href="data:image/png;base64,');
    const fromPng = await sharp(png).raw().toBuffer();
    const fromSvg = await sharp(svg).removeAlpha().raw().toBuffer();
    expect(fromSvg.equals(fromPng)).to.equal(true);
  });

  it('composites the logo on a cleared centre plate and still decodes', async () => {
    const logo = await solidLogo({ r: 220, g: 30, b: 30 });
    const { png } = await renderQr({ ...input, logo });
    expect(await pixelAt(png, 200, 200)).to.deep.equal([220, 30, 30]);
    expect((await decodeImage(png)).text).to.equal(input.payload);
  });

  it('uses error correction H when a logo is present, M otherwise', async () => {
    // A payload whose M symbol is smaller than its H symbol shows which level was used.
    const m = QRCode.create(input.payload, { errorCorrectionLevel: 'M' }).version;
    const h = QRCode.create(input.payload, { errorCorrectionLevel: 'H' }).version;
    expect(m).to.be.lessThan(h);
    const logo = await solidLogo({ r: 0, g: 120, b: 0 });
    expect((await decodeImage((await renderQr(input)).png)).version).to.equal(m);
    expect((await decodeImage((await renderQr({ ...input, logo })).png)).version).to.equal(h);
  });

  it('proves the smallest symbol (the one-pixel grid does not read it) and a large one', async () => {
    for (const payload of ['7', 'x'.repeat(1500)]) {
      const { png } = await renderQr({ ...input, payload, size: 1024 });
      expect((await decodeImage(png)).text).to.equal(payload);
    }
  });

  it('is deterministic: the same input gives the same bytes', async () => {
    const logo = await solidLogo({ r: 0, g: 120, b: 0 });
    const a = await renderQr({ ...input, logo });
    const b = await renderQr({ ...input, logo });
    expect(a.png.equals(b.png)).to.equal(true);
    expect(a.svg.equals(b.svg)).to.equal(true);
  });

  it('refuses to return an image that does not decode (a plate too large for level H)', async () => {
    const logo = await solidLogo({ r: 0, g: 0, b: 0 });
    const err = await rejection(renderQr({ ...input, logo, plateShare: 0.6 }));
    expect(err).to.be.instanceOf(UnreadableImageError);
    expect(err.message).to.equal('rendered image does not decode as a QR code');
  });

  it('refuses a logo whose header reads as png but whose pixels are corrupt', async () => {
    const truncated = (await solidLogo({ r: 200, g: 0, b: 0 })).subarray(0, 120);
    expect((await sharp(truncated).metadata()).format).to.equal('png');
    const err = await rejection(renderQr({ ...input, logo: truncated }));
    expect(err).to.be.instanceOf(RenderError);
    expect(err.message).to.equal('logo image data is corrupt');
  });

  it('refuses a size with fewer than two pixels per module', async () => {
    const err = await rejection(renderQr({ ...input, payload: 'x'.repeat(1500), size: 128 }));
    expect(err).to.be.instanceOf(RenderError);
    expect(err.message).to.equal('128 px is too small for this much data: use a larger size');
  });

  describe('render pool', () => {
    let pool: RenderPool;
    before(() => {
      pool = createRenderPool(1);
    });
    after(() => pool.close());

    it('settles warm once its thread has done its warm-up renders, and renders after', async () => {
      await pool.warm;
      expect((await decodeImage((await pool.render(input)).png)).text).to.equal(input.payload);
    });

    it('settles warm when closed before its threads have warmed up', async () => {
      const closing = createRenderPool(1, 1, 1000);
      await closing.close();
      await closing.warm;
    });

    it('renders in a thread, byte for byte as in-process', async () => {
      const [threaded, local] = await Promise.all([pool.render(input), renderQr(input)]);
      expect(threaded.png.equals(local.png)).to.equal(true);
      expect(threaded.svg.equals(local.svg)).to.equal(true);
    });

    it('reports a failed render as permanent and keeps serving', async () => {
      const logo = await solidLogo({ r: 0, g: 0, b: 0 });
      const err = await rejection(pool.render({ ...input, logo, plateShare: 0.6 }));
      expect(err).to.be.instanceOf(RenderFailure);
      expect(err.message).to.equal('rendered image does not decode as a QR code');
      expect((await decodeImage((await pool.render(input)).png)).text).to.equal(input.payload);
    });
  });
});
