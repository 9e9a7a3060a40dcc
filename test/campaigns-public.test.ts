import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { DATE_TIME } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

function slug(): string {
  return uniqueName('slug');
}

describe('campaign rotator and list page', () => {
  let app: TestApp;
  let second: TestApp;
  before(async () => {
    app = await startTestApp();
    second = await startTestApp();
  });
  after(async () => {
    await app.close();
    await second.close();
  });

  async function rotatorCampaign(urls: string[]) {
    const { apiKey } = await createTestUser();
    const s = slug();
    const campaign = await createCampaign(app, apiKey, { slug: s });
    for (const url of urls) {
      const link = await createLink(app, apiKey, { url });
      await assignToCampaign(app, apiKey, campaign.id, link.id);
    }
    return { apiKey, campaign, slug: s };
  }

  it('redirects to the campaign links in turn, by link id', async () => {
    const urls = ['https://example.com/1', 'https://example.com/2', 'https://example.com/3'];
    const { slug: s } = await rotatorCampaign(urls);
    const seen: Array<string | null> = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await visit(app, `/r/${s}`);
      expect(res.status).to.equal(302);
      seen.push(res.headers.get('location'));
    }
    expect(seen).to.deep.equal([...urls, ...urls]);
  });

  it('shares one turn order between API processes', async () => {
    const urls = ['https://example.com/a', 'https://example.com/b'];
    const { slug: s } = await rotatorCampaign(urls);
    const seen: Array<string | null> = [];
    for (const process of [app, second, app, second]) {
      seen.push((await visit(process, `/r/${s}`)).headers.get('location'));
    }
    expect(seen).to.deep.equal([...urls, ...urls]);
  });

  it('skips expired links', async () => {
    const { apiKey, campaign, slug: s } = await rotatorCampaign(['https://example.com/live']);
    const expired = await createLink(app, apiKey, {
      url: 'https://example.com/dead',
      expiry: '2001-01-01 00:00:00',
    });
    await assignToCampaign(app, apiKey, campaign.id, expired.id);
    for (let i = 0; i < 3; i += 1) {
      expect((await visit(app, `/r/${s}`)).headers.get('location')).to.equal(
        'https://example.com/live',
      );
    }
  });

  it('sends a password-protected link through its short URL, so the form is met', async () => {
    const { apiKey } = await createTestUser();
    const s = slug();
    const campaign = await createCampaign(app, apiKey, { slug: s });
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/pw',
      password: 'pw-secret',
    });
    await assignToCampaign(app, apiKey, campaign.id, link.id);
    const res = await visit(app, `/r/${s}`);
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal(link.shorturl);
  });

  it('answers the 404 page for a campaign without links and for an unknown slug', async () => {
    const { slug: s } = await rotatorCampaign([]);
    for (const path of [`/r/${s}`, `/r/${slug()}`, '/r/x']) {
      const res = await visit(app, path);
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
    }
  });

  it('shows a public campaign links as an escaped HTML page', async () => {
    const { apiKey } = await createTestUser();
    const campaign = await createCampaign(app, apiKey, { name: 'Best <b>links</b>', public: true });
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/',
      title: '<script>alert(1)</script>',
    });
    await assignToCampaign(app, apiKey, campaign.id, link.id);
    const res = await visit(app, new URL(campaign.list).pathname);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.text).to.include('<h1>Best &lt;b&gt;links&lt;/b&gt;</h1>');
    expect(res.text).to.include(
      `<a href="${link.shorturl}">&lt;script&gt;alert(1)&lt;/script&gt;</a>`,
    );
    expect(res.text).not.to.include('<script>');
  });

  it('answers the list as JSON when asked, links in id order', async () => {
    const { apiKey } = await createTestUser();
    const campaign = await createCampaign(app, apiKey, { name: 'JSON', public: true });
    const one = await createLink(app, apiKey, { url: 'https://example.com/1', title: 'One' });
    const two = await createLink(app, apiKey, { url: 'https://example.com/2' });
    await assignToCampaign(app, apiKey, campaign.id, two.id);
    await assignToCampaign(app, apiKey, campaign.id, one.id);
    const res = await visit(app, new URL(campaign.list).pathname, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).to.equal(200);
    const body = res.body as { data: { links: Array<{ date: string }> } };
    expect(body).to.deep.equal({
      error: 0,
      data: {
        id: campaign.id,
        name: 'JSON',
        links: [
          {
            id: one.id,
            alias: one.alias,
            shorturl: one.shorturl,
            title: 'One',
            date: body.data.links[0]?.date,
          },
          {
            id: two.id,
            alias: two.alias,
            shorturl: two.shorturl,
            title: '',
            date: body.data.links[1]?.date,
          },
        ],
      },
    });
    for (const l of body.data.links) expect(l.date).to.match(DATE_TIME);
  });

  it('answers 404 for a campaign that is not public, in HTML and in JSON', async () => {
    const { apiKey } = await createTestUser();
    const campaign = await createCampaign(app, apiKey, { name: 'Hidden' });
    const path = new URL(campaign.list).pathname;
    expect((await visit(app, path)).status).to.equal(404);
    const json = await visit(app, path, { headers: { accept: 'application/json' } });
    expect(json.status).to.equal(404);
    expect(json.text).not.to.include('Hidden');
  });

  it('answers 404 for another user name or an unknown user in the list URL', async () => {
    const owner = await createTestUser();
    const campaign = await createCampaign(app, owner.apiKey, { public: true });
    const { user } = await createTestUser();
    for (const name of [user.username, uniqueName('ghost')]) {
      expect((await visit(app, `/u/${name}/list-${campaign.id}`)).status).to.equal(404);
    }
    expect((await visit(app, `/u/${owner.user.username}/list-abc`)).status).to.equal(404);
  });
});
