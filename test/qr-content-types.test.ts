import { expect } from 'chai';
import { client } from './support/http';
import { aliasOf, decodeImage, waitForRender } from './support/qr';
import { PUBLIC_URL, useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('QR content types: geo, event, app', () => {
  const env = useQrEnvironment();

  it('renders a geo code as a geo: URI (RFC 5870)', async () => {
    const user = await createTestUser();
    const { id, link } = await env.create(user, {
      type: 'geo',
      data: { latitude: 48.8583701, longitude: 2.2944813, altitude: 35 },
    });
    await waitForRender(env.app, user.apiKey, id);
    const { bytes } = await env.image(link, '.png');
    expect((await decodeImage(bytes)).text).to.equal('geo:48.8583701,2.2944813,35');
  });

  it('renders an event as an iCalendar VEVENT with CRLF lines, UTC times and escaped text', async () => {
    const user = await createTestUser();
    const { id, link } = await env.create(user, {
      type: 'event',
      data: {
        summary: 'Launch; drinks, talks',
        start: '2026-05-01T19:30:00+02:00',
        end: '2026-05-01T22:00:00+02:00',
        location: 'Hall 2, Pier 4',
        description: 'Line one\nLine two',
      },
    });
    await waitForRender(env.app, user.apiKey, id);
    const text = (await decodeImage((await env.image(link, '.png')).bytes)).text;
    const lines = text.split('\r\n');
    expect(text.endsWith('\r\n')).to.equal(true);
    expect(lines.filter((l) => !l.startsWith('DTSTAMP:'))).to.deep.equal([
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//linkqr//QR event//EN',
      'BEGIN:VEVENT',
      `UID:${PUBLIC_URL}/s/${aliasOf(link)}`,
      'DTSTART:20260501T173000Z',
      'DTEND:20260501T200000Z',
      'SUMMARY:Launch\\; drinks\\, talks',
      'LOCATION:Hall 2\\, Pier 4',
      'DESCRIPTION:Line one\\nLine two',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ]);
    expect(lines.find((l) => l.startsWith('DTSTAMP:'))).to.match(/^DTSTAMP:\d{8}T\d{6}Z$/);
  });

  it('sends an app code to the store of the scanning phone, the web URL otherwise, counting each scan', async () => {
    const user = await createTestUser();
    const data = {
      ios: 'https://apps.apple.com/app/id123456789',
      android: 'https://play.google.com/store/apps/details?id=com.example.app',
      web: 'https://example.com/app',
    };
    const { id, link } = await env.create(user, { type: 'app', data });
    await waitForRender(env.app, user.apiKey, id);
    const scan = `${PUBLIC_URL}/s/${aliasOf(link)}`;
    expect((await decodeImage((await env.image(link, '.png')).bytes)).text).to.equal(scan);
    const path = new URL(scan).pathname;
    const expectations: Array<[string, string]> = [
      [IPHONE, data.ios],
      [ANDROID, data.android],
      [DESKTOP, data.web],
    ];
    for (const [agent, target] of expectations) {
      const res = await fetch(`${env.app.url}${path}`, {
        redirect: 'manual',
        headers: { 'user-agent': agent },
      });
      expect([
        res.status,
        res.headers.get('location'),
        res.headers.get('cache-control'),
      ]).to.deep.equal([302, target, 'private, no-store']);
    }
    await drainVisits(env.app);
    const res = await client(env.app.url, user.apiKey).get<{ details: { scans: number } }>(
      `/api/qr/${id}`,
    );
    expect(res.body.details.scans).to.equal(3);
  });

  it('sends an app code without a store for the phone to the web URL', async () => {
    const user = await createTestUser();
    const data = { ios: 'https://apps.apple.com/app/id1', web: 'https://example.com/w' };
    const { link } = await env.create(user, { type: 'app', data });
    const res = await fetch(`${env.app.url}/s/${aliasOf(link)}`, {
      redirect: 'manual',
      headers: { 'user-agent': ANDROID },
    });
    expect([res.status, res.headers.get('location')]).to.deep.equal([302, data.web]);
  });

  const refusals: Array<[string, Record<string, unknown>, string]> = [
    [
      'a latitude out of range',
      { type: 'geo', data: { latitude: 91, longitude: 0 } },
      'data.latitude must be less than or equal to 90',
    ],
    [
      'a geo without longitude',
      { type: 'geo', data: { latitude: 1 } },
      'data.longitude is required',
    ],
    [
      'an event time without a zone',
      {
        type: 'event',
        data: { summary: 'x', start: '2026-05-01T19:30:00', end: '2026-05-01T20:00:00Z' },
      },
      'data.start must be an ISO 8601 date and time with a zone, such as 2026-05-01T19:30:00+02:00',
    ],
    [
      'an event ending before it starts',
      {
        type: 'event',
        data: { summary: 'x', start: '2026-05-01T19:30:00Z', end: '2026-05-01T18:00:00Z' },
      },
      'data.end must not be before start',
    ],
    [
      'an app without a store',
      { type: 'app', data: { web: 'https://example.com' } },
      'data needs at least one of ios or android',
    ],
    [
      'an app without web',
      { type: 'app', data: { ios: 'https://apps.apple.com/app/id1' } },
      'data.web is required',
    ],
  ];
  for (const [what, body, message] of refusals) {
    it(`refuses ${what}`, async () => {
      const { apiKey } = await createTestUser();
      const res = await client(env.app.url, apiKey).post('/api/qr/add', body);
      expect([res.status, res.body]).to.deep.equal([
        422,
        { error: 1, message, code: 'validation_failed', field: res.body.field },
      ]);
    });
  }
});
