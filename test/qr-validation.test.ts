import { expect } from 'chai';
import { client } from './support/http';
import { useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';

describe('QR codes', () => {
  const env = useQrEnvironment();

  describe('validation (422)', () => {
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['a missing type', { data: 'x' }, 'type is required'],
      [
        'an unknown type',
        { type: 'barcode', data: 'x' },
        'type must be one of [text, vcard, link, email, phone, sms, wifi, geo, event, app]',
      ],
      ['missing data', { type: 'text' }, 'data is required'],
      ['data of the wrong shape', { type: 'text', data: 5 }, 'data must be a string or an object'],
      [
        'a link that is not http(s)',
        { type: 'link', data: 'javascript:alert(1)' },
        'data must be an http(s) URL',
      ],
      ['a bad email', { type: 'email', data: { email: 'no' } }, 'data.email must be a valid email'],
      [
        'a bad phone',
        { type: 'phone', data: 'phone me' },
        'data must be a phone number such as +15551234567',
      ],
      ['sms without a phone', { type: 'sms', data: { message: 'hi' } }, 'data.phone is required'],
      [
        'wifi without encryption',
        { type: 'wifi', data: { ssid: 'x' } },
        'data.encryption is required',
      ],
      [
        'a vcard without a name',
        { type: 'vcard', data: { email: 'a@b.co' } },
        'data needs at least one of firstname, lastname or org',
      ],
      [
        'a colour out of range',
        { type: 'text', data: 'x', foreground: 'rgb(256,0,0)' },
        'foreground must be of the form rgb(r,g,b) with 0..255 each, or #rrggbb',
      ],
      [
        'a short hex colour',
        { type: 'text', data: 'x', background: '#fff' },
        'background must be of the form rgb(r,g,b) with 0..255 each, or #rrggbb',
      ],
      [
        'low contrast',
        { type: 'text', data: 'x', foreground: 'rgb(200,200,200)' },
        'foreground and background contrast is 1.67:1; at least 3:1 is needed for the code to scan',
      ],
      [
        'light on dark',
        { type: 'text', data: 'x', foreground: 'rgb(255,255,255)', background: 'rgb(0,0,0)' },
        'foreground must be darker than background: many scanners cannot read light-on-dark codes',
      ],
      [
        'a logo file that is not an image',
        { type: 'text', data: 'x', logo: 'readme.png' },
        'logo is not a png or jpeg image',
      ],
      [
        'a logo path outside LOGO_DIR',
        { type: 'text', data: 'x', logo: '../../etc/passwd' },
        'logo path must stay inside LOGO_DIR',
      ],
      [
        'a logo symlink out of LOGO_DIR',
        { type: 'text', data: 'x', logo: 'hostname.png' },
        'logo path must stay inside LOGO_DIR',
      ],
      [
        'a missing logo file',
        { type: 'text', data: 'x', logo: 'nope.png' },
        'logo file not found in LOGO_DIR',
      ],
      [
        'a file: logo URL',
        { type: 'text', data: 'x', logo: 'file:///etc/passwd' },
        'logo URL must use http or https',
      ],
      [
        'a size too small',
        { type: 'text', data: 'x', size: 64 },
        'size must be greater than or equal to 128',
      ],
      [
        'a format we do not serve',
        { type: 'text', data: 'x', format: 'gif' },
        'format must be one of [png, svg]',
      ],
      [
        'data too long for any QR code',
        { type: 'text', data: 'x'.repeat(2000), logo: 'red.png' },
        'data is too long to fit in a QR code',
      ],
      [
        'data too dense for the size',
        { type: 'text', data: 'y'.repeat(1000), size: 128 },
        'size 128 px is too small for this much data: at least 258 px is needed',
      ],
      ['an unknown field', { type: 'text', data: 'x', colour: 'red' }, 'colour is not allowed'],
    ];
    for (const [what, body, message] of refusals) {
      it(`refuses ${what}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(env.app.url, apiKey).post('/api/qr/add', body);
        expect([res.status, res.body]).to.deep.equal([
          422,
          { error: 1, message, code: 'validation_failed', field: res.body.field },
        ]);
        expect(message.startsWith(String(res.body.field))).to.equal(true);
      });
    }

    it('refuses a logo URL that reaches a private address, by IP or by name', async () => {
      const { apiKey } = await createTestUser();
      const port = new URL(env.logos.origin).port;
      for (const logo of [
        `${env.logos.origin}/red.png`,
        `http://localhost:${port}/red.png`,
        'http://[::ffff:127.0.0.1]/red.png',
        'http://169.254.169.254/latest/meta-data',
      ]) {
        const res = await client(env.app.url, apiKey).post('/api/qr/add', {
          type: 'text',
          data: 'x',
          logo,
        });
        expect([res.status, res.body], logo).to.deep.equal([
          422,
          {
            error: 1,
            message: 'logo URL points to a private or local network address',
            code: 'validation_failed',
            field: 'logo',
          },
        ]);
      }
      // Refused before any request: the API never connected to the address.
      expect(env.logos.hits('/red.png')).to.equal(0);
    });

    it('checks the update against the stored type, colours and logo', async () => {
      const user = await createTestUser();
      const api = client(env.app.url, user.apiKey);
      const { id } = await env.create(user, {
        type: 'wifi',
        data: { ssid: 'a', encryption: 'nopass' },
      });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'data is required'],
        [{ data: 'just a string' }, 'data must be of type object'],
        [
          { data: { ssid: 'a', encryption: 'nopass' }, foreground: 'rgb(250,250,250)' },
          'foreground and background contrast is 1.04:1; at least 3:1 is needed for the code to scan',
        ],
        [
          { data: { ssid: 'a', encryption: 'nopass' }, logo: '/etc/passwd' },
          'logo path must stay inside LOGO_DIR',
        ],
      ];
      for (const [body, message] of cases) {
        const res = await api.put(`/api/qr/${id}/update`, body);
        expect([res.status, res.body], message).to.deep.equal([
          422,
          { error: 1, message, code: 'validation_failed', field: res.body.field },
        ]);
      }
    });
  });
});
