import { expect } from 'chai';
import mongoose from 'mongoose';
import { startTestApp, type TestApp } from './support/app-harness';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client } from './support/http';
import { createTestUser, uniqueName } from './support/users';

describe('branded domains: visitor requests by Host', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function claim(body: Record<string, unknown> = {}) {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const domain = uniqueDomain();
    const res = await api.post<{ id: number }>('/api/domain/add', { domain, ...body });
    expect(res.status, res.text).to.equal(200);
    return { api, id: res.body.id, host: new URL(domain).hostname };
  }

  it('sends the root of a branded domain to its redirectroot', async () => {
    const { host } = await claim({ redirectroot: 'https://www.example.com/welcome' });
    const res = await requestWithHost(app.url, '/', host);
    expect(res.status).to.equal(302);
    expect(res.location).to.equal('https://www.example.com/welcome');
  });

  it('sends the root to PUBLIC_URL when the domain has no redirectroot', async () => {
    const { host } = await claim();
    const res = await requestWithHost(app.url, '/', host);
    expect(res.status).to.equal(302);
    expect(res.location).to.equal('http://linkqr.test');
  });

  it('matches the Host case-insensitively and ignores its port', async () => {
    const { host } = await claim({ redirectroot: 'https://www.example.com/' });
    const res = await requestWithHost(app.url, '/', `${host.toUpperCase()}:8080`);
    expect(res.status).to.equal(302);
    expect(res.location).to.equal('https://www.example.com/');
  });

  it('sends a path that matches nothing to redirect404 when set', async () => {
    const { host } = await claim({ redirect404: 'https://www.example.com/lost' });
    const res = await requestWithHost(app.url, '/no-such-alias', host);
    expect(res.status).to.equal(302);
    expect(res.location).to.equal('https://www.example.com/lost');
  });

  it('answers the 404 page for a path that matches nothing without redirect404', async () => {
    const { host } = await claim({ redirectroot: 'https://www.example.com/' });
    const res = await requestWithHost(app.url, '/no-such-alias', host);
    expect(res.status).to.equal(404);
    expect(res.contentType).to.match(/^text\/html/);
    expect(res.text).to.include('<code>/no-such-alias</code>');
  });

  it('answers a plain 404 page for a host that is no branded domain', async () => {
    const res = await requestWithHost(app.url, '/', 'unclaimed.example.test');
    expect(res.status).to.equal(404);
    expect(res.location).to.equal(undefined);
    expect(res.contentType).to.match(/^text\/html/);
  });

  it('leaves requests on the service own host alone: its root is the first-run page', async () => {
    const res = await requestWithHost(app.url, '/', 'linkqr.test');
    expect(res.status).to.equal(200);
    expect(res.location).to.equal(undefined);
    expect(res.text).to.include('<h1>linkqr</h1>');
  });

  it('follows updates and deletes at once in this process', async () => {
    const { api, id, host } = await claim({ redirectroot: 'https://before.example/' });
    expect((await requestWithHost(app.url, '/', host)).location).to.equal(
      'https://before.example/',
    );
    await api.put(`/api/domain/${id}/update`, { redirectroot: 'https://after.example/' });
    expect((await requestWithHost(app.url, '/', host)).location).to.equal('https://after.example/');
    await api.delete(`/api/domain/${id}/delete`);
    const gone = await requestWithHost(app.url, '/', host);
    expect(gone.status).to.equal(404);
    expect(gone.location).to.equal(undefined);
  });

  it('serves a domain claimed after a visitor already hit its host', async () => {
    const { apiKey } = await createTestUser();
    const domain = uniqueDomain();
    const host = new URL(domain).hostname;
    expect((await requestWithHost(app.url, '/', host)).status).to.equal(404);
    await client(app.url, apiKey).post('/api/domain/add', {
      domain,
      redirectroot: 'https://claimed.example/',
    });
    expect((await requestWithHost(app.url, '/', host)).location).to.equal(
      'https://claimed.example/',
    );
  });

  it('makes no database query for the service own host nor for IP-address hosts', async () => {
    const collections: string[] = [];
    mongoose.set('debug', (collection: string) => collections.push(collection));
    try {
      // Short links look their alias up too; only the host resolution is under test here.
      const domainQueries = () => collections.filter((c) => c === 'domains');
      await requestWithHost(app.url, '/some-alias', 'linkqr.test');
      await requestWithHost(app.url, '/some-alias', new URL(app.url).host);
      expect(domainQueries()).to.deep.equal([]);
      // The probe does see a lookup when the host could be a branded domain.
      await requestWithHost(app.url, '/some-alias', `${uniqueName('probe')}.example.test`);
      expect(domainQueries()).to.deep.equal(['domains']);
    } finally {
      mongoose.set('debug', false);
    }
  });
});
