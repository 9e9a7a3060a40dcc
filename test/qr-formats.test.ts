import { expect } from 'chai';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { client } from './support/http';
import { QrImage } from '../src/qr-codes/qr-image.model';
import { MAX_STORED_VARIANTS } from '../src/qr-codes/qr-variants';
import { useQrEnvironment } from './support/qr-env';
import { decodeImage, formatsOf, waitForRender } from './support/qr';
import { rasterise } from './support/ghostscript';
import { createTestUser } from './support/users';

describe('QR image formats and sizes', function () {
  this.timeout(60_000);
  const env = useQrEnvironment();
  const style = {
    dots: 'rounded',
    gradient: { type: 'linear', colors: ['#000000', '#1a237e'], rotation: 30 },
    frame: { type: 'banner-bottom', text: 'SCAN ME' },
  };
  let link: string;
  let apiKey: string;

  before(async () => {
    const user = await createTestUser();
    apiKey = user.apiKey;
    const created = await env.create(
      user,
      { type: 'text', data: 'print me', logo: 'red.png', style },
      env.openApp,
    );
    link = created.link;
    const details = await waitForRender(env.app, apiKey, created.id);
    expect(details.status).to.equal('ready');
    const res = await client(env.app.url, apiKey).get<{ details: { formats: unknown } }>(
      `/api/qr/${created.id}`,
    );
    expect(res.body.details.formats).to.deep.equal(formatsOf(link));
  });

  it('serves a vector PDF (one image: the logo) that rasterises to the payload', async () => {
    const { res, bytes } = await env.image(link, '.pdf');
    expect([res.status, res.headers.get('content-type')]).to.deep.equal([200, 'application/pdf']);
    expect(res.headers.get('etag')).to.match(/^"/);
    expect(res.headers.get('content-disposition')).to.equal(null);
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).to.equal(1);
    const images = bytes.toString('latin1').match(/\/Subtype \/Image/g) ?? [];
    expect(images).to.have.length(1);
    const [png] = await rasterise([bytes], 'pdf');
    expect((await decodeImage(png!)).text).to.equal('print me');
    const again = await env.image(link, '.pdf', {
      'if-none-match': String(res.headers.get('etag')),
    });
    expect(again.res.status).to.equal(304);
  });

  it('serves CMYK with a bleed, and EPS with a bounding box, both readable', async () => {
    const cmyk = await env.image(link, '.pdf?cmyk=1&bleed=3');
    expect(cmyk.res.status).to.equal(200);
    expect(cmyk.bytes.toString('latin1')).to.include('/DeviceCMYK');
    const page = (await PDFDocument.load(cmyk.bytes)).getPage(0);
    expect(page.getTrimBox().x).to.be.closeTo((3 * 72) / 25.4, 0.001);
    const eps = await env.image(link, '.eps?download=1');
    expect([eps.res.status, eps.res.headers.get('content-type')]).to.deep.equal([
      200,
      'application/postscript',
    ]);
    expect(eps.res.headers.get('content-disposition')).to.equal(
      `attachment; filename="qr-${link.split('/').pop()}.eps"`,
    );
    expect(eps.bytes.toString('latin1')).to.match(
      /^%!PS-Adobe-3\.0 EPSF-3\.0\n%%BoundingBox: 0 0 \d+ \d+\n/,
    );
    const [fromCmyk, fromEps] = [
      ...(await rasterise([cmyk.bytes], 'pdf')),
      ...(await rasterise([eps.bytes], 'eps')),
    ];
    expect((await decodeImage(fromCmyk!)).text).to.equal('print me');
    expect((await decodeImage(fromEps!)).text).to.equal('print me');
  });

  it('draws the PNG at another size on request, proven, and offers it as a download', async () => {
    const { res, bytes } = await env.image(link, '.png?size=1024&download=1');
    expect([res.status, res.headers.get('content-type')]).to.deep.equal([200, 'image/png']);
    expect(res.headers.get('content-disposition')).to.equal(
      `attachment; filename="qr-${link.split('/').pop()}-1024.png"`,
    );
    expect((await sharp(bytes).metadata()).width).to.equal(1024);
    expect((await decodeImage(bytes)).text).to.equal('print me');
    const svg = await env.image(link, '.svg?download=1');
    expect(svg.res.headers.get('content-disposition')).to.match(/filename="qr-\w+\.svg"$/);
  });

  it('keeps at most eight drawn variants of a render, and still serves more', async () => {
    const user = await createTestUser();
    const { id, link: plain } = await env.create(user, { type: 'text', data: 'sizes' });
    await waitForRender(env.app, user.apiKey, id);
    const sizes = [200, 300, 400, 600, 700, 800, 900, 1000, 1100];
    for (const size of sizes) {
      const { res, bytes } = await env.image(plain, `.png?size=${size}`);
      expect(res.status).to.equal(200);
      expect((await sharp(bytes).metadata()).width).to.equal(size);
    }
    const variants = await QrImage.collection.countDocuments({ qrId: id, format: /@/ });
    expect(variants).to.equal(MAX_STORED_VARIANTS);
  });

  const refusals: Array<[string, string]> = [
    ['.png?size=100', 'size must be an integer from 128 to 4096'],
    ['.png?size=4097', 'size must be an integer from 128 to 4096'],
    ['.png?size=big', 'size must be an integer from 128 to 4096'],
    ['.svg?size=512', 'size applies to .png only'],
    ['.png?cmyk=1', 'cmyk and bleed apply to .pdf and .eps only'],
    ['.pdf?bleed=30', 'bleed must be a number of millimetres from 0 to 20'],
  ];
  for (const [suffix, message] of refusals) {
    it(`answers 400 to ${suffix}`, async () => {
      const { res, bytes } = await env.image(link, suffix);
      expect([res.status, res.headers.get('content-type')]).to.deep.equal([
        400,
        'text/html; charset=utf-8',
      ]);
      expect(bytes.toString()).to.include(`<p>${message}</p>`);
    });
  }
});
