import { expect } from 'chai';
import { ClickLimits } from '../src/visitor/click-limit';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};

describe('click limits and expired links (issue 24)', () => {
  let app: TestApp;
  let other: TestApp;
  before(async () => {
    // Two API processes sharing Redis and MongoDB, as behind a load balancer.
    [app, other] = await Promise.all([startTestApp(), startTestApp()]);
    await Promise.all([linkCacheLive(app), linkCacheLive(other)]);
  });
  after(() => Promise.all([app.close(), other.close()]));

  async function clicksOf(apiKey: string, id: number): Promise<number> {
    await drainVisits(app);
    const res = await client(app.url, apiKey).get<{ details: { clicks: number } }>(
      `/api/url/${id}`,
    );
    return res.body.details.clicks;
  }

  it('lets 50 of 100 concurrent clicks over two processes through, the rest to expiredurl', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/giveaway',
      maxclicks: 50,
      expiredurl: 'https://example.com/too-late',
    });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        visit(i % 2 ? app : other, `/${link.alias}`, { headers: BROWSER }),
      ),
    );
    const locations = answers.map((r) => `${r.status} ${r.headers.get('location')}`);
    const through = locations.filter((l) => l === '302 https://example.com/giveaway').length;
    const late = locations.filter((l) => l === '302 https://example.com/too-late').length;
    expect(through).to.equal(50);
    expect(late).to.equal(50);
    expect(await clicksOf(apiKey, link.id)).to.equal(50);
  });

  it('answers the 410 expired page once the clicks are used up, without expiredurl', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/x', maxclicks: 2 });
    for (let i = 0; i < 2; i += 1) {
      const res = await visit(app, `/${link.alias}`, { headers: BROWSER });
      expect(res.status).to.equal(302);
    }
    const gone = await visit(other, `/${link.alias}`, { headers: BROWSER });
    expect(gone.status).to.equal(410);
    expect(gone.text).to.include('This link has expired');
    // HEAD is not a visit: it neither takes a click nor is refused.
    const head = await visit(app, `/${link.alias}`, { method: 'HEAD', headers: BROWSER });
    expect(head.status).to.equal(302);
    expect(await clicksOf(apiKey, link.id)).to.equal(2);
  });

  it('sends visitors of a link expired by date to its expiredurl', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/x',
      expiry: '2001-01-01 00:00:00',
      expiredurl: 'https://example.com/over',
    });
    const res = await visit(app, `/${link.alias}`, { headers: BROWSER });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('https://example.com/over');
  });

  it('raising the limit lets more clicks through; a lost counter restarts from the stored clicks', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const link = await createLink(app, apiKey, { url: 'https://example.com/x', maxclicks: 1 });
    expect((await visit(app, `/${link.alias}`, { headers: BROWSER })).status).to.equal(302);
    expect((await visit(app, `/${link.alias}`, { headers: BROWSER })).status).to.equal(410);
    let res = await api.put(`/api/url/${link.id}/update`, { maxclicks: 2 });
    expect(res.status, res.text).to.equal(200);
    expect((await visit(app, `/${link.alias}`, { headers: BROWSER })).status).to.equal(302);
    expect((await visit(app, `/${link.alias}`, { headers: BROWSER })).status).to.equal(410);
    expect(await clicksOf(apiKey, link.id)).to.equal(2);
    await app.deps.redis.del(new ClickLimits(app.deps.redis, app.deps.keys).counterKey(link.id));
    res = await api.put(`/api/url/${link.id}/update`, { title: 'reloaded' });
    expect(res.status).to.equal(200);
    expect((await visit(app, `/${link.alias}`, { headers: BROWSER })).status).to.equal(410);
    res = await api.put(`/api/url/${link.id}/update`, { maxclicks: null });
    expect(res.status).to.equal(200);
    expect((await visit(app, `/${link.alias}`, { headers: BROWSER })).status).to.equal(302);
  });

  it('a counter left from an earlier limit catches up with the clicks made while the link had none', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const link = await createLink(app, apiKey, { url: 'https://example.com/x', maxclicks: 2 });
    const status = async () => (await visit(app, `/${link.alias}`, { headers: BROWSER })).status;
    for (let i = 0; i < 2; i += 1) expect(await status()).to.equal(302);
    let res = await api.put(`/api/url/${link.id}/update`, { maxclicks: null });
    expect(res.status).to.equal(200);
    for (let i = 0; i < 3; i += 1) expect(await status()).to.equal(302);
    expect(await clicksOf(apiKey, link.id)).to.equal(5);
    // The counter still says 2; the link has 5 clicks, so a limit of 6 leaves room for one.
    res = await api.put(`/api/url/${link.id}/update`, { maxclicks: 6 });
    expect(res.status).to.equal(200);
    expect(await status()).to.equal(302);
    expect(await status()).to.equal(410);
    expect(await clicksOf(apiKey, link.id)).to.equal(6);
  });

  it('shows maxclicks and expiredurl, and refuses bad ones with 422', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/x',
      maxclicks: 500,
      expiredurl: 'https://example.com/over',
    });
    const details = await api.get<{ details: Record<string, unknown> }>(`/api/url/${link.id}`);
    expect(details.body.details).to.deep.include({
      maxclicks: 500,
      expiredurl: 'https://example.com/over',
    });
    const zero = await api.post('/api/url/add', { url: 'https://example.com/', maxclicks: 0 });
    expect(zero.status).to.equal(422);
    expect(zero.body).to.deep.include({
      error: 1,
      message: 'maxclicks must be greater than or equal to 1',
    });
    const ftp = await api.post('/api/url/add', {
      url: 'https://example.com/',
      expiredurl: 'ftp://example.com/',
    });
    expect(ftp.status).to.equal(422);
    expect(ftp.body).to.deep.include({
      error: 1,
      message: 'expiredurl must be an http or https URL',
    });
  });
});
