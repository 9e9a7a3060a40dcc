import { expect } from 'chai';
import { listVisits } from '../src/visits/visits.service';
import { startTestApp, type TestApp } from './support/app-harness';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { client } from './support/http';
import { createLink, submitPassword, visit } from './support/links';
import { drainVisits } from './support/visits';
import { createTestUser, uniqueName } from './support/users';

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const firefoxLinux = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
const googlebot = 'Googlebot/2.1 (+http://www.google.com/bot.html)';
// fetch's own User-Agent ("node") counts as a bot, so every visit that should count sends a browser's.
const browser = { 'user-agent': chrome };

interface Details {
  details: { clicks: number };
  data: { clicks: number };
}

describe('short link clicks and statistics', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ COUNTRY_HEADER: 'cf-ipcountry' });
  });
  after(() => app.close());

  async function clicksOf(apiKey: string, id: number): Promise<number> {
    const res = await client(app.url, apiKey).get<Details>(`/api/url/${id}`);
    return res.body.data.clicks;
  }

  it('records each redirect and answers the statistics it produces', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/' });
    const hit = (headers: Record<string, string>) =>
      visit(app, `/${link.alias}`, { headers }).then((r) => expect(r.status).to.equal(302));
    await hit({
      'user-agent': chrome,
      'cf-ipcountry': 'DE',
      referer: 'https://www.facebook.com/p/1',
    });
    await hit({ 'user-agent': chrome, 'cf-ipcountry': 'DE', referer: 'https://t.co/abc' });
    await hit({ 'user-agent': firefoxLinux, 'cf-ipcountry': 'FR' });
    await hit({ 'user-agent': googlebot, 'cf-ipcountry': 'US' });
    await drainVisits(app);

    const res = await client(app.url, apiKey).get<Details>(`/api/url/${link.id}`);
    expect(res.body.data).to.deep.equal({
      clicks: 3,
      uniqueClicks: 2,
      topCountries: { Germany: '2', France: '1' },
      topReferrers: { Direct: '1', 'facebook.com': '1', 't.co': '1' },
      topBrowsers: { Chrome: '2', Firefox: '1' },
      topOs: { Windows: '2', Linux: '1' },
      socialCount: { facebook: 1, twitter: 1, linkedin: 0 },
    });
    expect(res.body.details.clicks).to.equal(3);
    const list = await client(app.url, apiKey).get<{ data: { urls: Array<{ clicks: number }> } }>(
      '/api/urls',
    );
    expect(list.body.data.urls.map((u) => u.clicks)).to.deep.equal([3]);
  });

  it('counts every link on its own in the list', async () => {
    const { apiKey } = await createTestUser();
    const one = await createLink(app, apiKey, { url: 'https://example.com/1' });
    const two = await createLink(app, apiKey, { url: 'https://example.com/2' });
    for (let i = 0; i < 2; i += 1) await visit(app, `/${one.alias}`, { headers: browser });
    await visit(app, `/${two.alias}`, { headers: browser });
    await drainVisits(app);
    const list = await client(app.url, apiKey).get<{
      data: { urls: Array<{ id: number; clicks: number }> };
    }>('/api/urls');
    expect(list.body.data.urls.map((u) => [u.id, u.clicks])).to.deep.equal([
      [two.id, 1],
      [one.id, 2],
    ]);
  });

  it('does not count HEAD requests, unknown aliases or expired links', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/' });
    const expired = await createLink(app, apiKey, {
      url: 'https://example.com/',
      expiry: '2001-01-01 00:00:00',
    });
    const head = await visit(app, `/${link.alias}`, { method: 'HEAD', headers: browser });
    expect(head.status).to.equal(302);
    expect((await visit(app, `/${expired.alias}`, { headers: browser })).status).to.equal(410);
    expect((await visit(app, `/${uniqueName('nope')}`, { headers: browser })).status).to.equal(404);
    await drainVisits(app);
    expect(await clicksOf(apiKey, link.id)).to.equal(0);
    expect(await clicksOf(apiKey, expired.id)).to.equal(0);
  });

  it('counts a protected link click only once the right password is given', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/',
      password: 'pw-secret',
    });
    expect((await visit(app, `/${link.alias}`, { headers: browser })).status).to.equal(200);
    expect((await submitPassword(app, link.alias, 'wrong', browser)).status).to.equal(401);
    await drainVisits(app);
    expect(await clicksOf(apiKey, link.id)).to.equal(0);
    expect((await submitPassword(app, link.alias, 'pw-secret', browser)).status).to.equal(302);
    await drainVisits(app);
    expect(await clicksOf(apiKey, link.id)).to.equal(1);
  });

  it('counts a rotator redirect as a click on the link it chose', async () => {
    const { apiKey } = await createTestUser();
    const slug = uniqueName('rot');
    const campaign = await createCampaign(app, apiKey, { slug });
    const one = await createLink(app, apiKey, { url: 'https://example.com/1' });
    const two = await createLink(app, apiKey, { url: 'https://example.com/2' });
    await assignToCampaign(app, apiKey, campaign.id, one.id);
    await assignToCampaign(app, apiKey, campaign.id, two.id);
    for (let i = 0; i < 3; i += 1)
      expect((await visit(app, `/r/${slug}`, { headers: browser })).status).to.equal(302);
    await drainVisits(app);
    expect(await clicksOf(apiKey, one.id)).to.equal(2);
    expect(await clicksOf(apiKey, two.id)).to.equal(1);
  });

  it('deletes the visits of a deleted link', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/' });
    await visit(app, `/${link.alias}`, { headers: browser });
    await drainVisits(app);
    expect(await listVisits({ kind: 'link', id: link.id })).to.have.length(1);
    await client(app.url, apiKey).delete(`/api/url/${link.id}/delete`);
    expect(await listVisits({ kind: 'link', id: link.id })).to.have.length(0);
  });

  it('never shows another user statistics', async () => {
    const owner = await createTestUser();
    const link = await createLink(app, owner.apiKey, { url: 'https://example.com/' });
    await visit(app, `/${link.alias}`, { headers: browser });
    await drainVisits(app);
    expect(await clicksOf(owner.apiKey, link.id)).to.equal(1);
    const { apiKey } = await createTestUser();
    const res = await client(app.url, apiKey).get(`/api/url/${link.id}`);
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ error: 1, message: 'Link not found' });
  });
});
