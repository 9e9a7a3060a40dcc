import { expect } from 'chai';
import { formatsOf } from './support/qr';
import { client } from './support/http';
import { aliasOf, decodeImage, waitForRender, type QrDetails } from './support/qr';
import { PUBLIC_URL, useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15';

describe('QR codes', () => {
  const env = useQrEnvironment();

  describe('the dynamic link', () => {
    it('redirects /s/{alias} to the target, which an update changes without a new image payload', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, {
        type: 'link',
        data: 'https://example.com/one',
      });
      await waitForRender(env.app, user.apiKey, id);
      const alias = aliasOf(link);
      const scan = await fetch(`${env.app.url}/s/${alias}`, { redirect: 'manual' });
      expect(scan.status).to.equal(302);
      expect(scan.headers.get('location')).to.equal('https://example.com/one');
      expect(scan.headers.get('cache-control')).to.equal('private, no-store');
      await client(env.app.url, user.apiKey).put(`/api/qr/${id}/update`, {
        data: { url: 'https://example.com/two' },
      });
      await waitForRender(env.app, user.apiKey, id);
      const again = await fetch(`${env.app.url}/s/${alias}`, { redirect: 'manual' });
      expect(again.headers.get('location')).to.equal('https://example.com/two');
      expect((await decodeImage((await env.image(link)).bytes)).text).to.equal(
        `${PUBLIC_URL}/s/${alias}`,
      );
    });

    it('records every scan: the exact statistics object, and scans in details and lists', async () => {
      const user = await createTestUser();
      const { id, link } = await env.create(user, {
        type: 'link',
        data: 'https://example.com/target',
        name: 'Poster',
      });
      const alias = aliasOf(link);
      const scan = async (headers: Record<string, string>) => {
        const res = await fetch(`${env.app.url}/s/${alias}`, { redirect: 'manual', headers });
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal('https://example.com/target');
      };
      await scan({
        'user-agent': CHROME_WINDOWS,
        'cf-ipcountry': 'DE',
        referer: 'https://www.facebook.com/p/1',
      });
      await scan({ 'user-agent': CHROME_WINDOWS, 'cf-ipcountry': 'DE', referer: 'https://t.co/x' });
      await scan({ 'user-agent': FIREFOX_LINUX, 'cf-ipcountry': 'FR' });
      await scan({
        'user-agent': SAFARI_MAC,
        'cf-ipcountry': 'DE',
        referer: 'https://www.linkedin.com/feed',
      });
      // A link-preview crawler is recorded but left out of the statistics.
      await scan({ 'user-agent': 'Twitterbot/1.0', 'cf-ipcountry': 'US' });
      await drainVisits(env.app);

      const res = await client(env.app.url, user.apiKey).get<{
        details: QrDetails;
        data: { topCountries: Record<string, string> };
      }>(`/api/qr/${id}`);
      expect(res.body).to.deep.equal({
        error: 0,
        details: {
          id,
          link,
          scans: 4,
          name: 'Poster',
          date: res.body.details.date,
          status: res.body.details.status,
          reason: null,
          style: null,
          formats: formatsOf(link),
        },
        data: {
          clicks: 4,
          // one address: visitors differ by browser only
          uniqueClicks: 3,
          topCountries: { Germany: '3', France: '1' },
          topReferrers: { Direct: '1', 'facebook.com': '1', 'linkedin.com': '1', 't.co': '1' },
          topBrowsers: { Chrome: '2', Firefox: '1', Safari: '1' },
          topOs: { Windows: '2', Linux: '1', 'Mac OS': '1' },
          socialCount: { facebook: 1, twitter: 1, linkedin: 1 },
        },
      });
      expect(Object.keys(res.body.data.topCountries)).to.deep.equal(['Germany', 'France']);
      const list = await client(env.app.url, user.apiKey).get<{
        data: { qrs: Array<{ id: number; scans: number }> };
      }>('/api/qr');
      expect(list.body.data.qrs.map((q) => [q.id, q.scans])).to.deep.equal([[id, 4]]);
    });

    it('answers the visitor 404 for codes that are not links and for unknown aliases', async () => {
      const user = await createTestUser();
      const { link } = await env.create(user, { type: 'text', data: 'static' });
      for (const p of [`/s/${aliasOf(link)}`, '/s/Zz99Zz99', '/qr/Zz99Zz99', '/qr/..%2Fetc']) {
        const res = await fetch(`${env.app.url}${p}`, { redirect: 'manual' });
        expect(res.status, p).to.equal(404);
      }
    });
  });
});
