import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { uniqueDomain } from './support/domains';
import { client, rawRequest, request } from './support/http';
import { createLink } from './support/links';
import { createTestUser } from './support/users';

/** GemPixel is lenient with what clients send; these are the forms real clients use. */
describe('GemPixel-lenient inputs', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function newUser() {
    const { apiKey } = await createTestUser();
    return { apiKey, api: client(app.url, apiKey) };
  }

  describe('"" and null optional fields mean "not given" on create (HTTP 200)', () => {
    it('url/add', async () => {
      const { api } = await newUser();
      for (const blank of ['', null]) {
        const res = await api.post<{ id: number }>('/api/url/add', {
          url: 'https://example.com/blank',
          custom: blank,
          domain: blank,
          title: blank,
          description: blank,
          expiry: blank,
          password: blank,
        });
        expect(res.status, res.text).to.equal(200);
        const details = await api.get<{ details: Record<string, unknown> }>(
          `/api/url/${res.body.id}`,
        );
        expect(details.body.details).to.include({
          title: '',
          description: '',
          expiry: null,
          password: false,
        });
        expect(details.body.details.alias).to.match(/^[A-Za-z0-9]{7}$/);
      }
    });

    it('qr/add', async () => {
      const { api } = await newUser();
      for (const blank of ['', null]) {
        const res = await api.post('/api/qr/add', {
          type: 'text',
          data: 'hello',
          background: blank,
          foreground: blank,
          logo: blank,
          name: blank,
          size: blank,
          format: blank,
        });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.link).to.be.a('string');
      }
    });

    it('pixel/add keeps its required fields strict and names the blank one', async () => {
      const { api } = await newUser();
      const ok = await api.post('/api/pixel/add', {
        type: 'gtmpixel',
        name: 'GTM',
        tag: 'GTM-AB12CD',
      });
      expect(ok.status, ok.text).to.equal(200);
      const blank = await api.post('/api/pixel/add', {
        type: 'gtmpixel',
        name: '',
        tag: 'GTM-AB12CD',
      });
      expect(blank.status).to.equal(422);
      expect(blank.body).to.deep.include({ error: 1, message: 'name is not allowed to be empty' });
      const none = await api.post('/api/pixel/add', { type: 'gtmpixel', name: 'x', tag: null });
      expect(none.status).to.equal(422);
      expect(none.body).to.deep.include({ error: 1, message: 'tag must be a string' });
    });

    it('domain/add', async () => {
      const { api } = await newUser();
      for (const blank of ['', null]) {
        const res = await api.post<{ id: number }>('/api/domain/add', {
          domain: uniqueDomain(),
          redirectroot: blank,
          redirect404: blank,
        });
        expect(res.status, res.text).to.equal(200);
      }
      const list = await api.get<{ data: { domains: Array<Record<string, unknown>> } }>(
        '/api/domains',
      );
      for (const domain of list.body.data.domains) {
        expect(domain.redirectroot ?? null).to.equal(null);
        expect(domain.redirect404 ?? null).to.equal(null);
      }
    });

    it('campaign/add', async () => {
      const { api } = await newUser();
      for (const blank of ['', null]) {
        const res = await api.post('/api/campaign/add', {
          name: blank,
          slug: blank,
          public: blank,
        });
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ error: 0, rotator: false });
      }
    });

    it('channel/add', async () => {
      const { api } = await newUser();
      for (const blank of ['', null]) {
        const res = await api.post('/api/channel/add', {
          name: 'Blank fields',
          description: blank,
          color: blank,
          starred: blank,
        });
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ error: 0, name: 'Blank fields', starred: false });
      }
    });
  });

  describe('"" and null on update', () => {
    it('leave fields without a "clear" meaning unchanged, and still clear those that have one', async () => {
      const { api, apiKey } = await newUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/keep',
        title: 'Kept',
        expiry: '2040-01-01',
        password: 'secret-pw',
      });
      const res = await api.put(`/api/url/${link.id}/update`, {
        url: null,
        custom: '',
        expiry: null,
        password: null,
      });
      expect(res.status, res.text).to.equal(200);
      const details = await api.get<{ details: Record<string, unknown> }>(`/api/url/${link.id}`);
      expect(details.body.details).to.include({
        longurl: 'https://example.com/keep',
        alias: link.alias,
        title: 'Kept',
        expiry: null,
        password: false,
      });
    });

    it('a blank channel name keeps the name while the other fields change', async () => {
      const { api } = await newUser();
      const created = await api.post<{ id: number }>('/api/channel/add', { name: 'Mine' });
      const res = await api.put(`/api/channel/${created.body.id}/update`, {
        name: '',
        color: '#112233',
      });
      expect(res.status, res.text).to.equal(200);
      const list = await api.get<{ data: { channels: Array<Record<string, unknown>> } }>(
        '/api/channels',
      );
      expect(list.body.data.channels[0]).to.include({ name: 'Mine', color: '#112233' });
    });
  });

  describe('dates', () => {
    const forms: Array<[string, string, string]> = [
      ['the spec form YYYY-MM-DD HH:MM:SS (UTC)', '2031-05-06 07:08:09', '2031-05-06 07:08:09'],
      ['ISO 8601 with an offset', '2031-05-06T07:08:09+02:00', '2031-05-06 05:08:09'],
      ['ISO 8601 with Z', '2031-05-06T07:08:09Z', '2031-05-06 07:08:09'],
      ['a bare YYYY-MM-DD, the end of that day in UTC', '2031-05-06', '2031-05-06 23:59:59'],
    ];
    for (const [form, sent, stored] of forms) {
      it(`reads ${form} on create and on update`, async () => {
        const { api, apiKey } = await newUser();
        const link = await createLink(app, apiKey, { url: 'https://example.com/', expiry: sent });
        let details = await api.get<{ details: { expiry: string } }>(`/api/url/${link.id}`);
        expect(details.body.details.expiry).to.equal(stored);
        await api.put(`/api/url/${link.id}/update`, { expiry: null });
        const res = await api.put(`/api/url/${link.id}/update`, { expiry: sent });
        expect(res.status, res.text).to.equal(200);
        details = await api.get(`/api/url/${link.id}`);
        expect(details.body.details.expiry).to.equal(stored);
      });
    }

    it('answers 422 naming the field for a date in none of the forms', async () => {
      const { api } = await newUser();
      const res = await api.post('/api/url/add', {
        url: 'https://example.com/',
        expiry: '06/05/2031',
      });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.match(/^expiry must be a date/);
    });
  });

  describe('GET and DELETE with a JSON body {} (GemPixel Python and C# samples)', () => {
    it('answers a GET carrying {} like one without a body', async () => {
      const { apiKey } = await createTestUser();
      for (const path of ['/api/account', '/api/urls', '/api/qr', '/api/domains']) {
        const res = await rawRequest(app.url, path, {
          method: 'GET',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
      }
    });

    it('answers a DELETE carrying {}', async () => {
      const { api, apiKey } = await newUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const res = await api.delete(`/api/url/${link.id}/delete`, { body: {} });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, message: 'Link has been successfully deleted.' });
    });

    it('answers a GET carrying {} with a charset in its Content-Type', async () => {
      const { apiKey } = await createTestUser();
      const res = await rawRequest(app.url, '/api/account', {
        method: 'GET',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json; charset=utf-8',
        },
        body: '{}',
      });
      expect(res.status, res.text).to.equal(200);
    });
  });

  describe('query parameters and body fields', () => {
    it('ignores unknown query parameters on every list', async () => {
      const { apiKey } = await createTestUser();
      const lists = ['/api/urls', '/api/qr', '/api/domains', '/api/pixels', '/api/campaigns'];
      for (const path of [...lists, '/api/channels', '/api/overlay', '/api/splash']) {
        const res = await request(app.url, `${path}?utm_source=bot&sort=new&limit=5`, {
          key: apiKey,
        });
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
        expect((res.body.data as { perpage: number }).perpage, path).to.equal(5);
      }
    });

    it('reads a blank limit or page as the default', async () => {
      const { apiKey } = await createTestUser();
      const res = await request(app.url, '/api/urls?limit=&page=', { key: apiKey });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ perpage: 15, currentpage: 1 });
    });

    it("reads PHP's empty array body [] as {}, and still refuses any other array", async () => {
      const { api, apiKey } = await newUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const empty = await api.put(`/api/url/${link.id}/update`, []);
      expect(empty.status).to.equal(422);
      expect(empty.body.message).to.match(/^at least one of url/);
      const campaign = await api.post('/api/campaign/add', []);
      expect(campaign.status, campaign.text).to.equal(200);
      const list = await api.post('/api/campaign/add', [{ name: 'x' }]);
      expect(list.status).to.equal(422);
      expect(list.body).to.deep.include({ error: 1, message: 'Body must be a JSON object' });
    });

    it('still answers 422 naming a body field nobody documents', async () => {
      const { api } = await newUser();
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['/api/url/add', { url: 'https://example.com/', titel: 'typo' }, 'titel is not allowed'],
        ['/api/qr/add', { type: 'text', data: 'x', colour: 'rgb(0,0,0)' }, 'colour is not allowed'],
        ['/api/channel/add', { name: 'x', colour: '#000000' }, 'colour is not allowed'],
        ['/api/campaign/add', { name: 'x', slugg: 'abc' }, 'slugg is not allowed'],
      ];
      for (const [path, body, message] of cases) {
        const res = await api.post(path, body);
        expect(res.status, path).to.equal(422);
        expect(res.body, path).to.deep.include({ error: 1, message });
      }
    });

    it('names a documented field sent with a blank of the wrong kind only when it is required', async () => {
      const { api } = await newUser();
      const res = await api.post('/api/url/add', { url: '' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'url is not allowed to be empty' });
    });
  });

  describe('every create answers HTTP 200 with error 0', () => {
    it('url, qr, pixel, domain, campaign, channel and bio', async () => {
      const { api } = await newUser();
      const creates: Array<[string, Record<string, unknown>]> = [
        ['/api/url/add', { url: 'https://example.com/' }],
        ['/api/qr/add', { type: 'text', data: 'hello' }],
        ['/api/pixel/add', { type: 'fbpixel', name: 'FB', tag: '123456789012345' }],
        ['/api/domain/add', { domain: uniqueDomain() }],
        ['/api/campaign/add', { name: 'Spring' }],
        ['/api/channel/add', { name: 'Social' }],
        ['/api/bio/add', { name: 'Me' }],
      ];
      for (const [path, body] of creates) {
        const res = await api.post(path, body);
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
        expect(res.body.error, path).to.equal(0);
        expect(res.body.id, path).to.be.a('number');
      }
    });
  });
});
