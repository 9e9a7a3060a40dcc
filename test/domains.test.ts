import { expect } from 'chai';
import { BrandedDomain } from '../src/domains/domain.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { uniqueDomain } from './support/domains';
import { client, type ListBody } from './support/http';
import { createTestUser } from './support/users';

interface DomainItem {
  id: number;
  domain: string;
  redirectroot: string | null;
  redirect404: string | null;
}
type DomainList = ListBody<'domains', DomainItem & { verification?: unknown }>;

/** The spec's fields of listed domains (the ownership field added beside them is M6's test's). */
const specOf = (items: Array<DomainItem & { verification?: unknown }>) =>
  items.map(({ verification: _verification, ...spec }) => spec);

describe('branded domains', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function owner() {
    const { user, apiKey } = await createTestUser();
    return { user, api: client(app.url, apiKey) };
  }

  async function addDomain(api: ReturnType<typeof client>, body: Record<string, unknown>) {
    const res = await api.post<{ id: number }>('/api/domain/add', body);
    expect(res.status, res.text).to.equal(200);
    return res.body.id;
  }

  describe('POST /api/domain/add', () => {
    it('creates the domain, answering 200 with only its id', async () => {
      const { user, api } = await owner();
      const domain = uniqueDomain();
      const res = await api.post('/api/domain/add', {
        domain,
        redirectroot: 'https://www.example.com/home',
        redirect404: 'https://www.example.com/missing',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, id: res.body.id });
      expect(res.body.id).to.be.a('number');
      const stored = await BrandedDomain.findOne({ id: Number(res.body.id) }).lean();
      expect(stored?.userId).to.equal(user.id);
      expect(stored?.domain).to.equal(domain);
    });

    it('stores the domain normalised: lower-case host, no trailing slash or default port', async () => {
      const { api } = await owner();
      const domain = uniqueDomain();
      const id = await addDomain(api, { domain: `${domain.toUpperCase()}:443/` });
      const list = await api.get<DomainList>('/api/domains');
      expect(specOf(list.body.data.domains)).to.deep.equal([
        { id, domain, redirectroot: null, redirect404: null },
      ]);
    });

    it('answers 409 when any user already registered the host, whatever the scheme', async () => {
      const first = await owner();
      const second = await owner();
      const domain = uniqueDomain('https');
      await addDomain(first.api, { domain });
      const other = await second.api.post('/api/domain/add', {
        domain: domain.replace('https:', 'http:'),
      });
      expect(other.status).to.equal(409);
      expect(other.body).to.deep.include({ error: 1, message: 'domain is already registered' });
      const again = await first.api.post('/api/domain/add', { domain });
      expect(again.status).to.equal(409);
      expect(again.body).to.deep.include({ error: 1, message: 'domain is already registered' });
    });

    it('lets exactly one of two simultaneous claims of a host win', async () => {
      const first = await owner();
      const second = await owner();
      const domain = uniqueDomain();
      const results = await Promise.all([
        first.api.post('/api/domain/add', { domain }),
        second.api.post('/api/domain/add', { domain: domain.replace('https:', 'http:') }),
      ]);
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409]);
      const loser = results.find((r) => r.status === 409);
      expect(loser?.body).to.deep.include({ error: 1, message: 'domain is already registered' });
      expect(await BrandedDomain.countDocuments({ host: new URL(domain).hostname })).to.equal(1);
    });

    it('answers 422 when domain is missing', async () => {
      const { api } = await owner();
      const res = await api.post('/api/domain/add', { redirectroot: 'https://www.example.com' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'domain is required' });
    });

    it('answers 422 when domain is not a string', async () => {
      const { api } = await owner();
      const res = await api.post('/api/domain/add', { domain: 42 });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'domain must be a string' });
    });

    const badDomains: Array<[string, string]> = [
      ['go.example.com', 'domain must start with http:// or https://'],
      [
        'https://go.example.com/links',
        'domain must be a host only, without a path, query or fragment',
      ],
      ['https://user:secret@go.example.com', 'domain must not contain credentials'],
      [
        'https://go.example.com:8443',
        'domain must not carry a port other than the default (80 or 443)',
      ],
      ['https://198.51.100.4', 'domain must be a domain name, not an IP address'],
      ['https://linkqr.test', 'domain is the address of this service itself'],
    ];
    for (const [domain, message] of badDomains) {
      it(`answers 422 for domain ${domain}`, async () => {
        const { api } = await owner();
        const res = await api.post('/api/domain/add', { domain });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
      });
    }

    for (const field of ['redirectroot', 'redirect404']) {
      it(`answers 422 when ${field} is not an http(s) URL`, async () => {
        const { api } = await owner();
        const res = await api.post('/api/domain/add', {
          domain: uniqueDomain(),
          [field]: 'javascript:alert(1)',
        });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({
          error: 1,
          message: `${field} must be an http:// or https:// URL`,
        });
      });

      it(`answers 422 when ${field} is not a string`, async () => {
        const { api } = await owner();
        const res = await api.post('/api/domain/add', { domain: uniqueDomain(), [field]: true });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message: `${field} must be a string` });
      });
    }

    it('answers 422 for an unknown field', async () => {
      const { api } = await owner();
      const res = await api.post('/api/domain/add', { domain: uniqueDomain(), owner: 1 });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'owner is not allowed' });
    });
  });

  describe('GET /api/domains', () => {
    it('lists only the caller domains, newest first, in the list envelope', async () => {
      const { api } = await owner();
      const stranger = await owner();
      await addDomain(stranger.api, { domain: uniqueDomain() });
      const first = uniqueDomain('http');
      const second = uniqueDomain();
      const firstId = await addDomain(api, { domain: first, redirectroot: 'https://a.example' });
      const secondId = await addDomain(api, { domain: second, redirect404: 'http://b.example/x' });
      const res = await api.get<DomainList>('/api/domains');
      expect(res.status).to.equal(200);
      expect({
        ...res.body,
        data: { ...res.body.data, domains: specOf(res.body.data.domains) },
      }).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          domains: [
            { id: secondId, domain: second, redirectroot: null, redirect404: 'http://b.example/x' },
            { id: firstId, domain: first, redirectroot: 'https://a.example', redirect404: null },
          ],
        },
      });
    });

    it('pages with limit and page', async () => {
      const { api } = await owner();
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1) ids.push(await addDomain(api, { domain: uniqueDomain() }));
      const page1 = await api.get<DomainList>('/api/domains?limit=2');
      expect(page1.body.data).to.include({
        result: 3,
        perpage: 2,
        currentpage: 1,
        nextpage: 2,
        maxpage: 2,
      });
      expect(page1.body.data.domains.map((d) => d.id)).to.deep.equal([ids[2], ids[1]]);
      const page2 = await api.get<DomainList>('/api/domains?limit=2&page=2');
      expect(page2.body.data).to.include({ currentpage: 2, nextpage: 2, maxpage: 2 });
      expect(page2.body.data.domains.map((d) => d.id)).to.deep.equal([ids[0]]);
    });

    it('answers an empty page past the end', async () => {
      const { api } = await owner();
      await addDomain(api, { domain: uniqueDomain() });
      const res = await api.get<DomainList>('/api/domains?limit=5&page=4');
      expect(res.status).to.equal(200);
      expect({
        ...res.body,
        data: { ...res.body.data, domains: specOf(res.body.data.domains) },
      }).to.deep.equal({
        error: '0',
        data: { result: 1, perpage: 5, currentpage: 4, nextpage: 1, maxpage: 1, domains: [] },
      });
    });

    for (const [query, message] of [
      ['limit=0', 'Invalid query: limit must be greater than or equal to 1'],
      ['limit=abc', 'Invalid query: limit must be a number'],
      ['limit=101', 'Invalid query: limit must be less than or equal to 100'],
      ['page=0', 'Invalid query: page must be greater than or equal to 1'],
    ]) {
      it(`answers 400 for ${query}`, async () => {
        const { api } = await owner();
        const res = await api.get(`/api/domains?${query}`);
        expect(res.status).to.equal(400);
        expect(res.body).to.deep.include({ error: 1, message });
      });
    }
  });

  describe('PUT /api/domain/:id/update', () => {
    it('changes redirectroot and redirect404', async () => {
      const { api } = await owner();
      const domain = uniqueDomain();
      const id = await addDomain(api, { domain, redirectroot: 'https://old.example' });
      const res = await api.put(`/api/domain/${id}/update`, {
        redirectroot: 'https://new.example/root',
        redirect404: 'https://new.example/404',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Domain has been successfully updated.',
      });
      const list = await api.get<DomainList>('/api/domains');
      expect(specOf(list.body.data.domains)).to.deep.equal([
        {
          id,
          domain,
          redirectroot: 'https://new.example/root',
          redirect404: 'https://new.example/404',
        },
      ]);
    });

    it('changes only the field sent, and clears one sent as null or an empty string', async () => {
      const { api } = await owner();
      const domain = uniqueDomain();
      const id = await addDomain(api, {
        domain,
        redirectroot: 'https://root.example',
        redirect404: 'https://404.example',
      });
      await api.put(`/api/domain/${id}/update`, { redirect404: null });
      let list = await api.get<DomainList>('/api/domains');
      expect(specOf(list.body.data.domains)[0]).to.deep.equal({
        id,
        domain,
        redirectroot: 'https://root.example',
        redirect404: null,
      });
      await api.put(`/api/domain/${id}/update`, { redirectroot: '' });
      list = await api.get<DomainList>('/api/domains');
      expect(specOf(list.body.data.domains)[0]).to.deep.equal({
        id,
        domain,
        redirectroot: null,
        redirect404: null,
      });
    });

    it('answers 422 when the domain itself is sent, and leaves it unchanged', async () => {
      const { api } = await owner();
      const domain = uniqueDomain();
      const id = await addDomain(api, { domain });
      const res = await api.put(`/api/domain/${id}/update`, {
        domain: uniqueDomain(),
        redirectroot: 'https://x.example',
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'domain cannot be changed' });
      const list = await api.get<DomainList>('/api/domains');
      expect(specOf(list.body.data.domains)).to.deep.equal([
        { id, domain, redirectroot: null, redirect404: null },
      ]);
    });

    it('answers 422 when nothing is sent', async () => {
      const { api } = await owner();
      const id = await addDomain(api, { domain: uniqueDomain() });
      const res = await api.put(`/api/domain/${id}/update`, {});
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'redirectroot, redirect404, appleAppSiteAssociation or assetLinks is required',
      });
    });

    it('answers 422 for a redirect that is not an http(s) URL', async () => {
      const { api } = await owner();
      const id = await addDomain(api, { domain: uniqueDomain() });
      const res = await api.put(`/api/domain/${id}/update`, { redirect404: '/relative' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'redirect404 must be an http:// or https:// URL',
      });
    });

    it('answers 404 for an unknown id, another user domain and a non-numeric id', async () => {
      const { api } = await owner();
      const other = await owner();
      const foreignId = await addDomain(other.api, {
        domain: uniqueDomain(),
        redirectroot: 'https://kept.example',
      });
      for (const id of [999_999_999, foreignId]) {
        const res = await api.put(`/api/domain/${id}/update`, {
          redirectroot: 'https://x.example',
        });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Domain not found' });
      }
      const bad = await api.put('/api/domain/abc/update', { redirectroot: 'https://x.example' });
      expect(bad.status).to.equal(404);
      expect(bad.body).to.deep.include({ error: 1, message: 'Not found' });
      const theirs = await other.api.get<DomainList>('/api/domains');
      expect(theirs.body.data.domains[0]?.redirectroot).to.equal('https://kept.example');
    });
  });

  describe('DELETE /api/domain/:id/delete', () => {
    it('deletes the domain, which frees it for a new claim', async () => {
      const { api } = await owner();
      const other = await owner();
      const domain = uniqueDomain();
      const id = await addDomain(api, { domain });
      const res = await api.delete(`/api/domain/${id}/delete`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Domain has been successfully deleted.',
      });
      const list = await api.get<DomainList>('/api/domains');
      expect(list.body.data.domains).to.deep.equal([]);
      await addDomain(other.api, { domain });
    });

    it('answers 404 for an unknown id and for another user domain, which stays', async () => {
      const { api } = await owner();
      const other = await owner();
      const foreignId = await addDomain(other.api, { domain: uniqueDomain() });
      for (const id of [999_999_999, foreignId]) {
        const res = await api.delete(`/api/domain/${id}/delete`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Domain not found' });
      }
      const theirs = await other.api.get<DomainList>('/api/domains');
      expect(theirs.body.data.domains.map((d) => d.id)).to.deep.equal([foreignId]);
    });
  });
});
