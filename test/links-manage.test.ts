import { expect } from 'chai';
import { Link, type LinkRecord } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, DATE_TIME } from './support/http';
import { createLink, DIRECT_LINK_FIELDS, visit } from './support/links';
import { createTestUser } from './support/users';

/** What an update without any field to change is told. */
const EMPTY_UPDATE =
  'at least one of url, custom, title, description, expiry, password, type, splash, overlay, pixels, geotarget, devicetarget, languagetarget, rules, variants, maxclicks, expiredurl, monitor, fallback, parameters, metatitle, metadescription, metaimage is required';

const ZERO_STATS = {
  clicks: 0,
  uniqueClicks: 0,
  topCountries: {},
  topReferrers: {},
  topBrowsers: {},
  topOs: {},
  socialCount: { facebook: 0, twitter: 0, linkedin: 0 },
};

describe('short links API: list, details, update, delete', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('GET /api/urls', () => {
    it('lists the caller links newest first in the list envelope', async () => {
      const { apiKey } = await createTestUser();
      const first = await createLink(app, apiKey, {
        url: 'https://example.com/one',
        title: 'One',
      });
      const second = await createLink(app, apiKey, { url: 'https://example.com/two' });
      const res = await client(app.url, apiKey).get<{
        data: { urls: Array<{ date: string }> };
      }>('/api/urls');
      expect(res.status).to.equal(200);
      const [d2, d1] = res.body.data.urls.map((u) => u.date);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          urls: [
            {
              id: second.id,
              alias: second.alias,
              shorturl: second.shorturl,
              longurl: 'https://example.com/two',
              title: '',
              description: '',
              clicks: 0,
              date: d2,
              ...DIRECT_LINK_FIELDS,
            },
            {
              id: first.id,
              alias: first.alias,
              shorturl: first.shorturl,
              longurl: 'https://example.com/one',
              title: 'One',
              description: '',
              clicks: 0,
              date: d1,
              ...DIRECT_LINK_FIELDS,
            },
          ],
        },
      });
      expect(d1).to.match(DATE_TIME);
      expect(d2).to.match(DATE_TIME);
    });

    it('pages with limit and page', async () => {
      const { apiKey } = await createTestUser();
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push((await createLink(app, apiKey, { url: `https://example.com/${i}` })).id);
      const res = await client(app.url, apiKey).get<{
        data: Record<string, unknown> & { urls: Array<{ id: number }> };
      }>('/api/urls?limit=2&page=2');
      expect(res.status).to.equal(200);
      const { urls, ...info } = res.body.data;
      expect(info).to.deep.equal({
        result: 3,
        perpage: 2,
        currentpage: 2,
        nextpage: 2,
        maxpage: 2,
      });
      expect(urls.map((u) => u.id)).to.deep.equal([ids[0]]);
    });

    it('answers 400 for a bad limit', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get('/api/urls?limit=0');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'Invalid query: limit must be greater than or equal to 1',
      });
    });

    it('never shows another user links', async () => {
      const other = await createTestUser();
      await createLink(app, other.apiKey, { url: 'https://example.com/theirs' });
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get<{ data: { result: number; urls: [] } }>(
        '/api/urls',
      );
      expect(res.body.data.result).to.equal(0);
      expect(res.body.data.urls).to.deep.equal([]);
    });
  });

  describe('GET /api/url/:id', () => {
    it('answers the details and the statistics of a link', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/x',
        title: 'X',
        expiry: '2031-02-03 04:05:06',
        password: 'secret-pw',
      });
      const res = await client(app.url, apiKey).get<{ details: { date: string } }>(
        `/api/url/${link.id}`,
      );
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        details: {
          id: link.id,
          alias: link.alias,
          shorturl: link.shorturl,
          longurl: 'https://example.com/x',
          title: 'X',
          description: '',
          clicks: 0,
          date: res.body.details.date,
          ...DIRECT_LINK_FIELDS,
          expiry: '2031-02-03 04:05:06',
          password: true,
          location: {},
          device: {},
          health: { status: 'unknown', checked: null, since: null, lastError: null },
        },
        data: ZERO_STATS,
      });
      expect(res.body.details.date).to.match(DATE_TIME);
    });

    it('reads an ISO 8601 expiry with its offset', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        expiry: '2031-02-03T06:05:06+02:00',
      });
      const res = await client(app.url, apiKey).get<{ details: { expiry: string } }>(
        `/api/url/${link.id}`,
      );
      expect(res.body.details.expiry).to.equal('2031-02-03 04:05:06');
    });

    it('answers 404 for another user link, exactly as for a missing one', async () => {
      const other = await createTestUser();
      const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/' });
      const { apiKey } = await createTestUser();
      for (const id of [theirs.id, 999_999_999]) {
        const res = await client(app.url, apiKey).get(`/api/url/${id}`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Link not found' });
      }
    });

    it('answers 404 for an id that is not a positive integer', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get('/api/url/abc');
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.include({ error: 1, message: 'Not found' });
    });
  });

  describe('PUT /api/url/:id/update', () => {
    it('changes the long URL, and the redirect follows at once', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/old' });
      expect((await visit(app, `/${link.alias}`)).headers.get('location')).to.equal(
        'https://example.com/old',
      );
      const res = await client(app.url, apiKey).put(`/api/url/${link.id}/update`, {
        url: 'https://example.com/new',
        title: 'New',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: link.id,
        short: link.shorturl,
        message: 'Link has been successfully updated.',
      });
      expect((await visit(app, `/${link.alias}`)).headers.get('location')).to.equal(
        'https://example.com/new',
      );
      const details = await client(app.url, apiKey).get<{
        details: { longurl: string; title: string };
      }>(`/api/url/${link.id}`);
      expect(details.body.details.longurl).to.equal('https://example.com/new');
      expect(details.body.details.title).to.equal('New');
    });

    it('sets and clears an expiry and a password with null', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      await api.put(`/api/url/${link.id}/update`, {
        expiry: '2032-01-01 00:00:00',
        password: 'pw-secret',
      });
      let details = await api.get<{ details: { expiry: unknown; password: boolean } }>(
        `/api/url/${link.id}`,
      );
      expect(details.body.details.expiry).to.equal('2032-01-01 00:00:00');
      expect(details.body.details.password).to.equal(true);
      await api.put(`/api/url/${link.id}/update`, { expiry: null, password: null });
      details = await api.get(`/api/url/${link.id}`);
      expect(details.body.details.expiry).to.equal(null);
      expect(details.body.details.password).to.equal(false);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['the body is empty', {}, EMPTY_UPDATE],
      ['url is not http(s)', { url: 'mailto:a@b.c' }, 'url must be an http or https URL'],
      ['url is null, which leaves it unchanged', { url: null }, EMPTY_UPDATE],
      ['domain is sent', { domain: 'https://go.example.com' }, 'domain is not allowed'],
      [
        'the password is shorter than 8 characters (issue 29, L7)',
        { password: '1234567' },
        'password length must be at least 8 characters long',
      ],
      [
        'expiry is not a date',
        { expiry: 'soon' },
        'expiry must be a date (YYYY-MM-DD HH:MM:SS in UTC, ISO 8601, or YYYY-MM-DD for the end of that day in UTC)',
      ],
    ];
    for (const [when, body, message] of invalid) {
      it(`answers 422 when ${when}`, async () => {
        const { apiKey } = await createTestUser();
        const link = await createLink(app, apiKey, { url: 'https://example.com/' });
        const res = await client(app.url, apiKey).put(`/api/url/${link.id}/update`, body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
      });
    }

    it('answers 404 for another user link and leaves it unchanged', async () => {
      const other = await createTestUser();
      const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/keep' });
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).put(`/api/url/${theirs.id}/update`, {
        url: 'https://evil.example/',
      });
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.include({ error: 1, message: 'Link not found' });
      expect((await Link.findOne({ id: theirs.id }).lean<LinkRecord>())?.url).to.equal(
        'https://example.com/keep',
      );
    });
  });

  describe('DELETE /api/url/:id/delete', () => {
    it('deletes the link: gone from the API and from its alias', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
      const res = await client(app.url, apiKey).delete(`/api/url/${link.id}/delete`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, message: 'Link has been successfully deleted.' });
      expect((await client(app.url, apiKey).get(`/api/url/${link.id}`)).status).to.equal(404);
      expect((await visit(app, `/${link.alias}`)).status).to.equal(404);
    });

    it('answers 404 for another user link, an unknown id and a second delete', async () => {
      const other = await createTestUser();
      const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/' });
      const { apiKey } = await createTestUser();
      const mine = await createLink(app, apiKey, { url: 'https://example.com/' });
      await client(app.url, apiKey).delete(`/api/url/${mine.id}/delete`);
      for (const id of [theirs.id, mine.id, 999_999_999]) {
        const res = await client(app.url, apiKey).delete(`/api/url/${id}/delete`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Link not found' });
      }
      expect((await visit(app, `/${theirs.alias}`)).status).to.equal(302);
    });
  });
});
