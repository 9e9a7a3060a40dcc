import { expect } from 'chai';
import { client } from './support/http';
import { useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';

describe('QR print check', () => {
  const env = useQrEnvironment();

  it('answers the smallest print for a distance, with the rule, contrast, quiet zone and EC headroom', async () => {
    const user = await createTestUser();
    const api = client(env.app.url, user.apiKey);
    // 'x' x 40 at level M is version 3: 29 modules.
    const { id } = await env.create(user, { type: 'text', data: 'x'.repeat(40) });
    const res = await api.get<{ error: number; data: Record<string, unknown> }>(
      `/api/qr/${id}/print?distance=2`,
    );
    expect(res.status, res.text).to.equal(200);
    // 2 m / 10 = 200 mm over 29 modules: 6.9 mm a module; the drawing adds 2 x 4 modules.
    expect(res.body).to.deep.equal({
      error: 0,
      data: {
        distance: 2,
        rule: 'the symbol is at least a 10th of the scanning distance wide (the 10:1 rule), each module at least 0.4 mm',
        modules: 29,
        moduleMm: 6.9,
        symbolMm: 200,
        width: 255.2,
        height: 255.2,
        contrast: 21,
        quietZone: { modules: 4, mm: 27.6 },
        errorCorrection: { level: 'M', logoCodewords: 0, correctable: 13, headroom: 13 },
        warnings: [
          'the PDF and EPS are 135.5 mm wide at their own size: scale them to at least 255.2 mm',
        ],
      },
    });
    const close = await api.get<{ data: { moduleMm: number; warnings: string[] } }>(
      `/api/qr/${id}/print?distance=0.1`,
    );
    // 0.1 m would give 0.34 mm modules: the 0.4 mm floor applies.
    expect(close.body.data.moduleMm).to.equal(0.4);
    expect(close.body.data.warnings).to.deep.equal([]);
  });

  it('warns of a thin quiet zone, low contrast and a logo eating the error correction', async () => {
    const user = await createTestUser();
    const { id } = await env.create(user, {
      type: 'text',
      data: 'x'.repeat(40),
      foreground: 'rgb(118,118,118)',
      logo: 'red.png',
      style: { margin: 2, errorCorrection: 'M' },
    });
    const res = await client(env.app.url, user.apiKey).get<{
      data: { contrast: number; errorCorrection: Record<string, unknown>; warnings: string[] };
    }>(`/api/qr/${id}/print?distance=0.3`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.contrast).to.equal(4.54);
    const ec = res.body.data.errorCorrection;
    expect(ec.level).to.equal('M');
    expect(ec.headroom).to.equal(Number(ec.correctable) - Number(ec.logoCodewords));
    expect(res.body.data.warnings[0]).to.equal(
      'the quiet zone is 2 modules; ISO/IEC 18004 asks for 4: keep 2 more modules clear of print around the code',
    );
    if (Number(ec.headroom) < 2) {
      expect(res.body.data.warnings).to.include(
        `the logo leaves ${ec.headroom} codewords of error correction per block: a scratch or fold may make the code unreadable`,
      );
    }
  });

  for (const [query, message] of [
    ['', 'distance is required'],
    ['?distance=0', 'distance must be greater than 0'],
    ['?distance=far', 'distance must be a number'],
    ['?distance=500', 'distance must be less than or equal to 200'],
  ]) {
    it(`answers 400 to ${query || 'no distance'}`, async () => {
      const user = await createTestUser();
      const { id } = await env.create(user, { type: 'text', data: 'p' });
      const res = await client(env.app.url, user.apiKey).get(`/api/qr/${id}/print${query}`);
      expect([res.status, res.body]).to.deep.equal([
        400,
        { error: 1, message: `Invalid query: ${message}`, code: 'bad_query', field: 'distance' },
      ]);
    });
  }

  it("answers 404 for another user's code", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const { id } = await env.create(owner, { type: 'text', data: 'mine' });
    const res = await client(env.app.url, other.apiKey).get(`/api/qr/${id}/print?distance=1`);
    expect([res.status, res.body]).to.deep.equal([
      404,
      { error: 1, message: 'QR code not found', code: 'not_found' },
    ]);
  });
});
