import { expect } from 'chai';
import { decode as decodePng, encode as encodePng } from 'fast-png';
import jsQR from 'jsqr';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { contrastRatio, MIN_CONTRAST, type Rgb } from '../../src/qr-codes/qr-colors';
import { modulePixels, QUIET_ZONE } from '../../src/qr-codes/qr-symbol';
import {
  GRID_MARGIN,
  rasterise,
  rgbGrey,
  sampleModules,
  symbolPng,
  type Geometry,
} from '../../workers/qr-render/symbol-raster';
import {
  gridReadsAs,
  UnreadableImageError,
  verifyPng,
  verifySymbolPng,
  type ExpectedSymbol,
} from '../../workers/qr-render/verify-png';
import { rejection } from '../support/rejection';

const black = { r: 0, g: 0, b: 0 };
const white = { r: 255, g: 255, b: 255 };
const navy = { r: 10, g: 20, b: 90 };
const cream = { r: 250, g: 245, b: 220 };

function symbol(payload: string, size: number): { data: Uint8Array; g: Geometry } {
  const { modules } = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  const scale = modulePixels(size, modules.size + 2 * QUIET_ZONE);
  const offset = Math.floor((size - scale * modules.size) / 2);
  const g = { modules: modules.size, scale, offset, plateStart: 0, plateModules: 0 };
  return { data: modules.data, g };
}

function drawn(payload: string, size: number, fg: Rgb = black, bg: Rgb = white) {
  const { data, g } = symbol(payload, size);
  return {
    g,
    pixels: rasterise(data, g, size, fg, bg),
    png: symbolPng(data, g, size, fg, bg),
  };
}

function decodeRgb(pixels: Buffer, width: number): string | undefined {
  const rgba = new Uint8ClampedArray(width * width * 4);
  for (let i = 0, o = 0; i < pixels.length; i += 3, o += 4) {
    rgba.set([pixels[i] as number, pixels[i + 1] as number, pixels[i + 2] as number, 255], o);
  }
  return jsQR(rgba, width, width)?.data;
}

/** The PNG re-encoded by sharp from these pixels: a valid file holding other pixels. */
function pngOf(pixels: Buffer, size: number): Promise<Buffer> {
  return sharp(pixels, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

describe('QR symbol raster', () => {
  const payload = 'https://linkqr.test/s/Ab12Cd34';

  it('draws pixels that decode to the payload, in the given colours', () => {
    const { pixels } = drawn(payload, 300, navy, cream);
    expect(decodeRgb(pixels, 300)).to.equal(payload);
    expect([...pixels.subarray(0, 3)]).to.deep.equal([250, 245, 220]);
  });

  for (const size of [64, 250, 333, 512, 1000]) {
    it(`writes a 1-bit PNG that libvips reads back as exactly the drawn pixels (${size} px)`, async () => {
      const { pixels, png } = drawn(payload, size, navy, cream);
      const meta = await sharp(png).metadata();
      expect([
        meta.format,
        meta.width,
        meta.height,
        meta.isPalette,
        meta.bitsPerSample,
      ]).to.deep.equal(['png', size, size, true, 1]);
      const decoded = await sharp(png).removeAlpha().raw().toBuffer();
      expect(decoded.equals(pixels)).to.equal(true);
    });
  }

  it('samples one grey value per module, with a margin of quiet zone, that jsQR reads', () => {
    const { pixels, g } = drawn(payload, 512);
    const { rgba, width } = sampleModules(rgbGrey(pixels, 512), g, 2);
    expect(width).to.equal((g.modules + 2 * GRID_MARGIN) * 2);
    expect(jsQR(rgba, width, width)?.data).to.equal(payload);
  });
});

describe('QR module grid read by ZXing as a pure barcode', () => {
  /** The lightest grey still allowed as a foreground on white. */
  const lowest = (() => {
    let v = 0;
    while (contrastRatio({ r: v + 1, g: v + 1, b: v + 1 }, white) >= MIN_CONTRAST) v += 1;
    return { r: v, g: v, b: v };
  })();

  it('reads the smallest symbols (which jsQR does not read at one pixel per module) to large ones', () => {
    for (const text of ['7', 'https://l.test/s/a1', 'x'.repeat(300), 'x'.repeat(1500)]) {
      for (const [fg, bg] of [
        [black, white],
        [navy, cream],
        [lowest, white],
      ] as const) {
        const { pixels, g } = drawn(text, 1024, fg, bg);
        expect(gridReadsAs(rgbGrey(pixels, 1024), g, text), `${text.length} chars`).to.equal(true);
      }
    }
  });

  it('answers false for another payload, and for a grid that is no symbol', () => {
    const { pixels, g } = drawn('https://l.test/s/a1', 512);
    expect(gridReadsAs(rgbGrey(pixels, 512), g, 'https://l.test/s/a2')).to.equal(false);
    expect(gridReadsAs(() => 255, g, 'https://l.test/s/a1')).to.equal(false);
  });
});

describe('QR decode proof', () => {
  const payload = 'https://linkqr.test/s/Ab12Cd34';

  it('accepts a PNG that holds the drawn pixels and decodes to the payload', async () => {
    const { pixels, png, g } = drawn(payload, 512, navy, cream);
    await verifyPng(png, payload, { pixels, geometry: g });
  });

  it('rejects a PNG whose pixels differ from those drawn, by one module', async () => {
    const { pixels, g } = drawn(payload, 512);
    const broken = Buffer.from(pixels);
    // Darken one light module of the quiet zone: the symbol itself still scans.
    for (let y = 0; y < g.scale; y += 1) broken.fill(0, y * 512 * 3, (y * 512 + g.scale) * 3);
    expect(decodeRgb(broken, 512)).to.equal(payload);
    const err = await rejection(
      verifyPng(await pngOf(broken, 512), payload, { pixels, geometry: g }),
    );
    expect(err).to.be.instanceOf(UnreadableImageError);
    expect(err.message).to.equal('rendered image does not hold the pixels drawn');
  });

  it('rejects bytes that are not a readable PNG', async () => {
    const { pixels, png, g } = drawn(payload, 512);
    const corrupt = Buffer.from(png);
    corrupt[corrupt.length - 30] = (corrupt[corrupt.length - 30] as number) ^ 0xff;
    for (const bytes of [png.subarray(0, png.length / 2), corrupt]) {
      const err = await rejection(verifyPng(bytes, payload, { pixels, geometry: g }));
      expect(err).to.be.instanceOf(UnreadableImageError);
      expect(err.message).to.be.oneOf([
        'rendered image is not a readable PNG',
        'rendered image does not hold the pixels drawn',
      ]);
    }
  });

  it('rejects drawn pixels that decode to another payload', async () => {
    const { pixels, png, g } = drawn('https://linkqr.test/s/Zz98Yx76', 512);
    const err = await rejection(verifyPng(png, payload, { pixels, geometry: g }));
    expect(err).to.be.instanceOf(UnreadableImageError);
    expect(err.message).to.equal('rendered image decodes to a different payload');
  });

  it('rejects drawn pixels that do not decode at all', async () => {
    const { g } = drawn(payload, 512);
    const blank = Buffer.alloc(512 * 512 * 3, 255);
    const err = await rejection(
      verifyPng(await pngOf(blank, 512), payload, { pixels: blank, geometry: g }),
    );
    expect(err).to.be.instanceOf(UnreadableImageError);
    expect(err.message).to.equal('rendered image does not decode as a QR code');
  });
});

describe('QR decode proof of a symbol without a logo', () => {
  const payload = 'https://linkqr.test/s/Ab12Cd34';

  function written(text: string, size: number, fg: Rgb = navy, bg: Rgb = cream) {
    const { data, g } = symbol(text, size);
    const expected: ExpectedSymbol = { data, geometry: g, size, foreground: fg, background: bg };
    return { png: symbolPng(data, g, size, fg, bg), expected };
  }

  /** The PNG's pixels as palette indices, one byte each, as another encoder takes them. */
  function indices(png: Buffer): { index: Uint8Array; size: number } {
    const image = decodePng(png);
    const rowBytes = Math.ceil(image.width / 8);
    const index = new Uint8Array(image.width * image.height);
    for (let y = 0; y < image.height; y += 1) {
      for (let x = 0; x < image.width; x += 1) {
        const byte = image.data[y * rowBytes + (x >> 3)] as number;
        index[y * image.width + x] = (byte >> (7 - (x & 7))) & 1;
      }
    }
    return { index, size: image.width };
  }

  /** A 1-bit palette PNG written by fast-png's encoder, not ours. */
  function encoded(index: Uint8Array, size: number, palette: number[][]): Buffer {
    const rowBytes = Math.ceil(size / 8);
    const data = new Uint8Array(rowBytes * size);
    index.forEach((v, i) => {
      const x = i % size;
      const at = Math.floor(i / size) * rowBytes + (x >> 3);
      data[at] = (data[at] as number) | (v << (7 - (x & 7)));
    });
    return Buffer.from(
      encodePng({ width: size, height: size, data, depth: 1, channels: 1, palette }),
    );
  }

  const rgbOf = ({ r, g, b }: Rgb) => [r, g, b];

  async function refusal(png: Buffer, expected: ExpectedSymbol, text = payload): Promise<string> {
    const err = await rejection(verifySymbolPng(png, text, expected));
    expect(err).to.be.instanceOf(UnreadableImageError);
    return err.message;
  }

  for (const size of [64, 250, 333, 512, 1000]) {
    it(`accepts the symbol as written, at ${size} px`, async () => {
      const { png, expected } = written(payload, size);
      await verifySymbolPng(png, payload, expected);
    });
  }

  it('compares pixels, not bytes: the same picture from another encoder, palette swapped, passes', async () => {
    const { png, expected } = written(payload, 250);
    const { index, size } = indices(png);
    const swapped = encoded(
      index.map((v) => 1 - v),
      size,
      [rgbOf(navy), rgbOf(cream)],
    );
    expect(swapped.equals(png)).to.equal(false);
    await verifySymbolPng(swapped, payload, expected);
  });

  for (const [where, at] of [
    ['the first pixel of the quiet zone', () => [0, 0]],
    ['the last pixel of the image', (s: number) => [s - 1, s - 1]],
    [
      "a module row's last pixel row",
      (_s: number, g: Geometry) => [g.offset + 3 * g.scale + 1, g.offset + 10 * g.scale - 1],
    ],
  ] as const) {
    it(`rejects a picture one pixel off as drawn: ${where}`, async () => {
      const { png, expected } = written(payload, 250);
      const { index, size } = indices(png);
      const [x, y] = at(size, expected.geometry);
      index[y * size + x] = 1 - (index[y * size + x] as number);
      const broken = encoded(index, size, [rgbOf(cream), rgbOf(navy)]);
      expect(await refusal(broken, expected)).to.equal(
        'rendered image does not hold the pixels drawn',
      );
    });
  }

  it('rejects a colour one step off, or any transparency', async () => {
    const { png, expected } = written(payload, 250);
    const { index, size } = indices(png);
    const off = encoded(index, size, [rgbOf(cream), [11, 20, 90]]);
    const clear = encoded(index, size, [
      [...rgbOf(cream), 0],
      [...rgbOf(navy), 255],
    ]);
    for (const bytes of [off, clear]) {
      expect(await refusal(bytes, expected)).to.equal(
        'rendered image does not hold the pixels drawn',
      );
    }
  });

  it('rejects every truncation and every flipped bit of the file', async () => {
    const { png, expected } = written(payload, 250);
    for (let n = 0; n < png.length; n += 1) {
      const flipped = Buffer.from(png);
      flipped[n] = (flipped[n] as number) ^ (1 << (n % 8));
      for (const bytes of [png.subarray(0, n), flipped]) {
        expect(await refusal(bytes, expected)).to.be.oneOf([
          'rendered image is not a readable PNG',
          'rendered image does not hold the pixels drawn',
        ]);
      }
    }
  });

  it('rejects a symbol drawn as expected that decodes to another payload', async () => {
    const { png, expected } = written('https://linkqr.test/s/Zz98Yx76', 512);
    expect(await refusal(png, expected)).to.equal('rendered image decodes to a different payload');
  });

  it('rejects a symbol drawn as expected that does not decode at all', async () => {
    const { expected } = written(payload, 512);
    const blank = { ...expected, data: new Uint8Array(expected.data.length) };
    const png = symbolPng(blank.data, blank.geometry, 512, navy, cream);
    expect(await refusal(png, blank)).to.equal('rendered image does not decode as a QR code');
  });
});
