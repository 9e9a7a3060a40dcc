import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { uniqueDomain } from './support/domains';
import { client } from './support/http';
import { aliasOf, createLink, linkCacheLive, visit } from './support/links';
import { drainVisits } from './support/visits';
import { createTestUser, uniqueName } from './support/users';

const PUBLIC = 'http://linkqr.test';
const browser = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};

interface Details {
  id: number;
  alias: string;
  shorturl: string;
  longurl: string;
  title: string;
  description: string;
  clicks: number;
  date: string;
  expiry: string | null;
  password: boolean;
}

describe('short links as GemPixel clients use them', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await linkCacheLive(app);
  });
  after(() => app.close());

  async function userWithDomain() {
    const { apiKey } = await createTestUser();
    const domain = uniqueDomain();
    const res = await client(app.url, apiKey).post('/api/domain/add', { domain });
    expect(res.status, res.text).to.equal(200);
    return { apiKey, domain, host: new URL(domain).host };
  }

  describe('url/add `domain`', () => {
    it('accepts the branded domain as a URL and as a bare host', async () => {
      const { apiKey, domain, host } = await userWithDomain();
      for (const sent of [domain, host, host.toUpperCase(), `http://${host}/`]) {
        const res = await client(app.url, apiKey).post<{ shorturl: string; short: string }>(
          '/api/url/add',
          { url: 'https://example.com/', domain: sent },
        );
        expect(res.status, `${sent}: ${res.text}`).to.equal(200);
        expect(res.body.shorturl, sent).to.match(new RegExp(`^${domain}/[A-Za-z0-9]{7}$`));
        expect(res.body.short).to.equal(res.body.shorturl);
      }
    });

    it('reads the service own host, bare or as a URL, as the default domain', async () => {
      const { apiKey } = await createTestUser();
      for (const sent of ['linkqr.test', 'http://linkqr.test', 'https://linkqr.test/']) {
        const res = await client(app.url, apiKey).post<{ shorturl: string }>('/api/url/add', {
          url: 'https://example.com/',
          domain: sent,
        });
        expect(res.status, `${sent}: ${res.text}`).to.equal(200);
        expect(res.body.shorturl, sent).to.match(/^http:\/\/linkqr\.test\/[A-Za-z0-9]{7}$/);
      }
    });

    it('answers 422 for a bare host that is not one of the caller domains', async () => {
      const { apiKey } = await createTestUser();
      const other = await userWithDomain();
      const res = await client(app.url, apiKey).post('/api/url/add', {
        url: 'https://example.com/',
        domain: other.host,
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.equal({
        error: 1,
        message: 'domain must be one of your branded domains',
      });
    });
  });

  describe('description', () => {
    it('is stored and returned in list items and details, and can be changed', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        description: 'Spring newsletter',
      });
      const list = await api.get<{ data: { urls: Details[] } }>('/api/urls');
      expect(list.body.data.urls[0]?.description).to.equal('Spring newsletter');
      await api.put(`/api/url/${link.id}/update`, { description: 'Summer newsletter' });
      const details = await api.get<{ details: Details }>(`/api/url/${link.id}`);
      expect(details.body.details.description).to.equal('Summer newsletter');
    });
  });

  describe('PUT /api/url/:id/update', () => {
    it('moves the link to a new `custom` alias; the old alias answers 404 and stays reserved', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/moved' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
      const alias = uniqueName('moved');
      const res = await api.put(`/api/url/${link.id}/update`, { custom: alias });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ id: link.id, short: `${PUBLIC}/${alias}` });

      const moved = await visit(app, `/${alias}`);
      expect(moved.status).to.equal(302);
      expect(moved.headers.get('location')).to.equal('https://example.com/moved');
      expect((await visit(app, `/${link.alias}`)).status).to.equal(404);

      // Nobody, the owner included, can take the old alias again.
      const reuse = await api.post('/api/url/add', {
        url: 'https://example.com/other',
        custom: link.alias,
      });
      expect(reuse.status).to.equal(409);
      expect(reuse.body).to.deep.equal({
        error: 1,
        message: `alias ${link.alias} is already taken`,
      });
    });

    it('keeps the alias when `custom` repeats it, and answers 409 for a taken one', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const same = await api.put(`/api/url/${link.id}/update`, { custom: link.alias });
      expect(same.status).to.equal(200);
      expect(same.body.short).to.equal(link.shorturl);
      const other = await createLink(app, apiKey, { url: 'https://example.com/2' });
      const taken = await api.put(`/api/url/${link.id}/update`, { custom: other.alias });
      expect(taken.status).to.equal(409);
      expect(taken.body).to.deep.equal({
        error: 1,
        message: `alias ${other.alias} is already taken`,
      });
      const reserved = await api.put(`/api/url/${link.id}/update`, { custom: 'api' });
      expect(reserved.status).to.equal(422);
    });

    it('moves a link whose branded domain was deleted to an alias that is free on PUBLIC_URL', async () => {
      const { apiKey, domain } = await userWithDomain();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/orphan', domain });
      const domains = await api.get<{ data: { domains: Array<{ id: number }> } }>('/api/domains');
      await api.delete(`/api/domain/${domains.body.data.domains[0]?.id}/delete`);
      const taken = await createLink(app, apiKey, { url: 'https://example.com/public' });
      const clash = await api.put(`/api/url/${link.id}/update`, { custom: taken.alias });
      expect(clash.status).to.equal(409);

      const alias = uniqueName('orphan');
      const res = await api.put(`/api/url/${link.id}/update`, { custom: alias });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.short).to.equal(`${PUBLIC}/${alias}`);
      expect((await visit(app, `/${alias}`)).headers.get('location')).to.equal(
        'https://example.com/orphan',
      );
      const reuse = await api.post('/api/url/add', { url: 'https://example.com/', custom: alias });
      expect(reuse.status).to.equal(409);
    });

    it('moves a branded-domain link within its domain', async () => {
      const { apiKey, domain } = await userWithDomain();
      const link = await createLink(app, apiKey, { url: 'https://example.com/', domain });
      const alias = uniqueName('brand');
      const res = await client(app.url, apiKey).put(`/api/url/${link.id}/update`, {
        custom: alias,
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.short).to.equal(`${domain}/${alias}`);
    });
  });

  describe('GET /api/urls `order`', () => {
    it('lists newest first by default and with order=date, most clicked first with order=click', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const a = await createLink(app, apiKey, { url: 'https://example.com/a' });
      const b = await createLink(app, apiKey, { url: 'https://example.com/b' });
      const c = await createLink(app, apiKey, { url: 'https://example.com/c' });
      for (let i = 0; i < 3; i += 1) await visit(app, `/${a.alias}`, { headers: browser });
      await visit(app, `/${c.alias}`, { headers: browser });
      await drainVisits(app);

      const ids = async (query: string) =>
        (await api.get<{ data: { urls: Details[] } }>(`/api/urls${query}`)).body.data.urls.map(
          (u) => [u.id, u.clicks],
        );
      expect(await ids('')).to.deep.equal([
        [c.id, 1],
        [b.id, 0],
        [a.id, 3],
      ]);
      expect(await ids('?order=date')).to.deep.equal(await ids(''));
      expect(await ids('?order=click')).to.deep.equal([
        [a.id, 3],
        [c.id, 1],
        [b.id, 0],
      ]);
      const page2 = await api.get<{ data: { result: number; urls: Details[] } }>(
        '/api/urls?order=click&limit=2&page=2',
      );
      expect(page2.body.data.result).to.equal(3);
      expect(page2.body.data.urls.map((u) => u.id)).to.deep.equal([b.id]);
    });

    it('answers 400 for an order it does not know', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get('/api/urls?order=random');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        error: 1,
        message: 'Invalid query: order must be one of [date, click, clicks]',
      });
    });
  });

  describe('GET /api/urls `short`', () => {
    it('answers the one matching link by alias, short URL, or short URL without scheme', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/found',
        title: 'Found',
      });
      await visit(app, `/${link.alias}`, { headers: browser });
      await drainVisits(app);
      for (const short of [link.alias, link.shorturl, `linkqr.test/${link.alias}`]) {
        const res = await client(app.url, apiKey).get<{ error: number; data: Details }>(
          `/api/urls?short=${encodeURIComponent(short)}`,
        );
        expect(res.status, short).to.equal(200);
        expect(res.body.error).to.equal(0);
        expect(res.body.data).to.include({
          id: link.id,
          alias: link.alias,
          shorturl: link.shorturl,
          longurl: 'https://example.com/found',
          title: 'Found',
          clicks: 1,
          password: false,
        });
      }
    });

    it('finds a link on a branded domain by its short URL', async () => {
      const { apiKey, domain } = await userWithDomain();
      const link = await createLink(app, apiKey, { url: 'https://example.com/', domain });
      const res = await client(app.url, apiKey).get<{ data: Details }>(
        `/api/urls?short=${encodeURIComponent(link.shorturl)}`,
      );
      expect(res.status).to.equal(200);
      expect(res.body.data.id).to.equal(link.id);
      expect(aliasOf(res.body.data.shorturl)).to.equal(link.alias);
    });

    it('finds a link whose branded domain was deleted by its PUBLIC_URL short URL', async () => {
      const { apiKey, domain } = await userWithDomain();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/', domain });
      const domains = await api.get<{ data: { domains: Array<{ id: number }> } }>('/api/domains');
      await api.delete(`/api/domain/${domains.body.data.domains[0]?.id}/delete`);
      const res = await api.get<{ data: Details }>(
        `/api/urls?short=${encodeURIComponent(`${PUBLIC}/${link.alias}`)}`,
      );
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ id: link.id, shorturl: `${PUBLIC}/${link.alias}` });
    });

    it('answers 404 for another user link, an unknown alias, or a foreign host', async () => {
      const other = await createTestUser();
      const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/' });
      const { apiKey } = await createTestUser();
      const mine = await createLink(app, apiKey, { url: 'https://example.com/' });
      for (const short of [
        theirs.alias,
        theirs.shorturl,
        'nosuchalias',
        `https://elsewhere.example/${mine.alias}`,
      ]) {
        const res = await client(app.url, apiKey).get(
          `/api/urls?short=${encodeURIComponent(short)}`,
        );
        expect(res.status, short).to.equal(404);
        expect(res.body).to.deep.equal({ error: 1, message: 'Link not found' });
      }
    });
  });
});
