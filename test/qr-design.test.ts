import { expect } from 'chai';
import sharp from 'sharp';
import { client } from './support/http';
import { useQrEnvironment } from './support/qr-env';
import { decodeImage, waitForRender } from './support/qr';
import { createTestUser } from './support/users';

describe('QR designs through the API', () => {
  const env = useQrEnvironment();

  it('renders a styled code (dots, corners, gradient, frame, logo, hex colours), served as PNG and SVG that decode', async () => {
    const user = await createTestUser();
    const style = {
      dots: 'dots',
      corners: { frame: { shape: 'circle', color: '#1a237e' }, ball: { shape: 'rounded' } },
      gradient: { type: 'radial', colors: ['#000000', '#0d47a1'] },
      frame: { type: 'banner-bottom', text: 'SCAN ME', color: '#222222' },
      margin: 3,
    };
    const { id, link } = await env.create(
      user,
      { type: 'text', data: 'styled menu', background: '#FFFDF5', logo: 'red.png', style },
      env.openApp,
    );
    const details = await waitForRender(env.app, user.apiKey, id);
    expect([details.status, details.reason]).to.deep.equal(['ready', null]);
    const res = await client(env.app.url, user.apiKey).get<{ details: { style: unknown } }>(
      `/api/qr/${id}`,
    );
    expect(res.body.details.style).to.deep.equal({
      ...style,
      corners: { frame: { shape: 'circle', color: 'rgb(26,35,126)' }, ball: { shape: 'rounded' } },
      gradient: { type: 'radial', colors: ['rgb(0,0,0)', 'rgb(13,71,161)'] },
      frame: { type: 'banner-bottom', text: 'SCAN ME', color: 'rgb(34,34,34)' },
    });
    const png = await env.image(link, '.png');
    expect(png.res.headers.get('content-type')).to.equal('image/png');
    expect((await decodeImage(png.bytes)).text).to.equal('styled menu');
    const svg = await env.image(link, '.svg');
    expect(svg.bytes.toString()).to.include('<radialGradient');
    expect((await decodeImage(svg.bytes)).text).to.equal('styled menu');
  });

  it('re-renders with a new style on update, and style null goes back to plain squares', async () => {
    const user = await createTestUser();
    const api = client(env.app.url, user.apiKey);
    const { id, link } = await env.create(user, { type: 'text', data: 'v1' });
    await waitForRender(env.app, user.apiKey, id);
    const plain = (await env.image(link, '.svg')).bytes.toString();
    expect(plain).to.include('shape-rendering="crispEdges"');
    const updated = await api.put(`/api/qr/${id}/update`, {
      data: 'v2',
      style: { dots: 'classy', frame: { type: 'box', text: 'Menu' } },
    });
    expect(updated.status, updated.text).to.equal(200);
    await waitForRender(env.app, user.apiKey, id);
    const styled = (await env.image(link, '.svg')).bytes;
    expect(styled.toString()).to.not.include('crispEdges');
    expect((await decodeImage(styled)).text).to.equal('v2');
    // Fields not sent keep their values: the style stays on an update of the data alone.
    await api.put(`/api/qr/${id}/update`, { data: 'v3' });
    await waitForRender(env.app, user.apiKey, id);
    const kept = await api.get<{ details: { style: { dots: string } } }>(`/api/qr/${id}`);
    expect(kept.body.details.style.dots).to.equal('classy');
    await api.put(`/api/qr/${id}/update`, { data: 'v4', style: null });
    await waitForRender(env.app, user.apiKey, id);
    const back = (await env.image(link, '.svg')).bytes;
    expect(back.toString()).to.include('crispEdges');
    expect((await decodeImage(back)).text).to.equal('v4');
  });

  it('renders a logo at the largest style.logoSize, proven and decoding, its plate larger than the default', async () => {
    const user = await createTestUser();
    // A symbol (version 5 at level H) whose blocks still recover a plate of 0.4 of its side.
    const data = 'https://example.com/spring-fair-menu';
    const codes = await Promise.all(
      [undefined, 0.4].map((logoSize) =>
        env.create(user, { type: 'text', data, logo: 'red.png', style: { logoSize } }),
      ),
    );
    const red = async (link: string) => {
      const png = await env.image(link, '.png');
      expect((await decodeImage(png.bytes)).text).to.equal(data);
      const { data: pixels } = await sharp(png.bytes)
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      let count = 0;
      for (let i = 0; i < pixels.length; i += 3) {
        if ((pixels[i] as number) > 180 && (pixels[i + 1] as number) < 90) count += 1;
      }
      return count;
    };
    for (const { id } of codes) {
      const details = await waitForRender(env.app, user.apiKey, id);
      // Ready: the worker decoded the render back to its payload before storing it.
      expect([details.status, details.reason]).to.deep.equal(['ready', null]);
    }
    const [byDefault, largest] = [await red(codes[0]!.link), await red(codes[1]!.link)];
    expect(largest).to.be.greaterThan(byDefault * 2);
    const res = await client(env.app.url, user.apiKey).get<{ details: { style: unknown } }>(
      `/api/qr/${codes[1]!.id}`,
    );
    expect(res.body.details.style).to.deep.equal({ logoSize: 0.4 });
  });

  describe('designs that would not scan are refused (422, naming the part)', () => {
    const refusals: Array<[string, Record<string, unknown>, string, string]> = [
      [
        'a low-contrast gradient colour',
        { style: { gradient: { type: 'linear', colors: ['#000000', '#e0e0e0'] } } },
        'style.gradient',
        'style.gradient crosses below the contrast a scanner needs: at 70% of its axis it is rgb(157,157,157), 2.71:1 against the background; at least 3:1 is needed all along for the code to scan',
      ],
      [
        'a gradient that crosses the background midway',
        { style: { gradient: { type: 'linear', colors: ['#000000', '#ffffff', '#000000'] } } },
        'style.gradient',
        'style.gradient crosses below the contrast a scanner needs: at 30% of its axis it is rgb(153,153,153), 2.84:1 against the background; at least 3:1 is needed all along for the code to scan',
      ],
      [
        'a corner colour without contrast',
        { style: { corners: { frame: { color: 'rgb(250,250,250)' } } } },
        'style.corners.frame.color',
        'style.corners.frame.color (rgb(250,250,250)) and background contrast is 1.04:1',
      ],
      [
        'an oversize logo for its error correction',
        { logo: 'red.png', style: { errorCorrection: 'L' } },
        'logo',
        'logo covers ',
      ],
      [
        'a logo size too large for level Q',
        { logo: 'red.png', style: { logoSize: 0.4, errorCorrection: 'Q' } },
        'style.logoSize',
        'logo covers ',
      ],
      [
        'a logo size at the maximum that this symbol cannot carry even at level H',
        { logo: 'red.png', style: { logoSize: 0.4 } },
        'style.logoSize',
        'logo covers 12 codewords of an error-correction block that recovers 11 at level H: use a smaller style.logoSize, or no logo',
      ],
      [
        'a logo size below the minimum',
        { logo: 'red.png', style: { logoSize: 0.05 } },
        'style.logoSize',
        'style.logoSize must be greater than or equal to 0.1',
      ],
      [
        'a logo size above the maximum',
        { logo: 'red.png', style: { logoSize: 0.45 } },
        'style.logoSize',
        'style.logoSize must be less than or equal to 0.4',
      ],
      [
        'a logo size that is not a number',
        { logo: 'red.png', style: { logoSize: 'large' } },
        'style.logoSize',
        'style.logoSize must be a number',
      ],
      [
        'frame text the font cannot draw',
        { style: { frame: { type: 'banner-top', text: 'Сканируй 🙂' } } },
        'style.frame.text',
        'style.frame.text has characters the frame font cannot draw: С к а н и р у й 🙂',
      ],
      [
        'frame text too long',
        { style: { frame: { type: 'box', text: 'x'.repeat(31) } } },
        'style.frame.text',
        'style.frame.text length must be less than or equal to 30 characters long',
      ],
      [
        'an unknown dot style',
        { style: { dots: 'hearts' } },
        'style.dots',
        'style.dots must be one of [square, rounded, dots, classy, extra-rounded]',
      ],
      [
        'a margin below 2',
        { style: { margin: 1 } },
        'style.margin',
        'style.margin must be greater than or equal to 2',
      ],
      [
        'one gradient colour',
        { style: { gradient: { type: 'linear', colors: ['#000000'] } } },
        'style.gradient.colors',
        'style.gradient.colors must contain at least 2 items',
      ],
    ];
    for (const [what, extra, field, message] of refusals) {
      it(`refuses ${what}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(env.app.url, apiKey).post('/api/qr/add', {
          type: 'text',
          data: 'https://example.com/menu',
          ...extra,
        });
        expect(res.status, res.text).to.equal(422);
        expect(res.body).to.include({ error: 1, code: 'validation_failed', field });
        expect(res.body.message).to.match(
          new RegExp(`^${message.replace(/[()[\]+.?*]/g, '\\$&')}`),
        );
      });
    }
  });
});
