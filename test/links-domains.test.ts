import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

describe('short links on branded domains', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function userWithDomain(body: Record<string, unknown> = {}) {
    const { user, apiKey } = await createTestUser();
    const domain = uniqueDomain();
    const res = await client(app.url, apiKey).post<{ id: number }>('/api/domain/add', {
      domain,
      ...body,
    });
    expect(res.status, res.text).to.equal(200);
    return { user, apiKey, domain, domainId: res.body.id, host: new URL(domain).hostname };
  }

  it('creates a link on the caller branded domain, with its shorturl there', async () => {
    const { apiKey, domain } = await userWithDomain();
    const alias = uniqueName('br');
    const res = await client(app.url, apiKey).post<{ id: number }>('/api/url/add', {
      url: 'https://example.com/branded',
      domain,
      custom: alias,
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      error: 0,
      id: res.body.id,
      shorturl: `${domain}/${alias}`,
      short: `${domain}/${alias}`,
    });
    const list = await client(app.url, apiKey).get<{ data: { urls: Array<{ shorturl: string }> } }>(
      '/api/urls',
    );
    expect(list.body.data.urls.map((u) => u.shorturl)).to.deep.equal([`${domain}/${alias}`]);
  });

  it('names the domain by URL whatever its scheme and case', async () => {
    const { apiKey, domain, host } = await userWithDomain();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/',
      domain: `HTTP://${host.toUpperCase()}/`,
    });
    expect(link.shorturl.startsWith(`${domain}/`)).to.equal(true);
  });

  it('answers 422 for another user branded domain', async () => {
    const { domain } = await userWithDomain();
    const { apiKey } = await createTestUser();
    const res = await client(app.url, apiKey).post('/api/url/add', {
      url: 'https://example.com/',
      domain,
    });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'domain must be one of your branded domains',
    });
  });

  it('redirects on its domain only; the same alias may live on PUBLIC_URL too', async () => {
    const { apiKey, domain, host } = await userWithDomain();
    const alias = uniqueName('both');
    await createLink(app, apiKey, { url: 'https://example.com/branded', domain, custom: alias });
    expect((await visit(app, `/${alias}`)).status).to.equal(404);
    await createLink(app, apiKey, { url: 'https://example.com/default', custom: alias });
    const branded = await requestWithHost(app.url, `/${alias}`, host);
    expect(branded.status).to.equal(302);
    expect(branded.location).to.equal('https://example.com/branded');
    const plain = await requestWithHost(app.url, `/${alias}`, 'linkqr.test');
    expect(plain.status).to.equal(302);
    expect(plain.location).to.equal('https://example.com/default');
  });

  it('answers 409 for an alias taken on the same branded domain', async () => {
    const { apiKey, domain } = await userWithDomain();
    const alias = uniqueName('dup');
    await createLink(app, apiKey, { url: 'https://example.com/', domain, custom: alias });
    const res = await client(app.url, apiKey).post('/api/url/add', {
      url: 'https://example.com/',
      domain,
      custom: alias,
    });
    expect(res.status).to.equal(409);
    expect(res.body).to.deep.equal({ error: 1, message: `alias ${alias} is already taken` });
  });

  it('sends an unknown alias on a branded domain to its redirect404', async () => {
    const { host } = await userWithDomain({ redirect404: 'https://www.example.com/lost' });
    const res = await requestWithHost(app.url, `/${uniqueName('none')}`, host);
    expect(res.status).to.equal(302);
    expect(res.location).to.equal('https://www.example.com/lost');
  });

  it('keeps a link working on PUBLIC_URL once its branded domain is deleted', async () => {
    const { apiKey, domain, domainId } = await userWithDomain();
    const alias = uniqueName('orphan');
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/kept',
      domain,
      custom: alias,
    });
    expect(
      (await client(app.url, apiKey).delete(`/api/domain/${domainId}/delete`)).status,
    ).to.equal(200);
    const res = await visit(app, `/${alias}`);
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('https://example.com/kept');
    const details = await client(app.url, apiKey).get<{ details: { shorturl: string } }>(
      `/api/url/${link.id}`,
    );
    expect(details.body.details.shorturl).to.equal(`http://linkqr.test/${alias}`);
    // The alias is now in use on PUBLIC_URL, so nobody may take it there.
    const other = await createTestUser();
    const taken = await client(app.url, other.apiKey).post('/api/url/add', {
      url: 'https://example.com/',
      custom: alias,
    });
    expect(taken.status).to.equal(409);
    expect(taken.body).to.deep.equal({ error: 1, message: `alias ${alias} is already taken` });
  });
});
