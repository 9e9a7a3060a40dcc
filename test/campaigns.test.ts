import { expect } from 'chai';
import { rotatorCounterKey } from '../src/campaigns/rotation';
import { Link, type LinkRecord } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

const PUBLIC = 'http://linkqr.test';

function slug(): string {
  return uniqueName('slug');
}

describe('campaigns API', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('POST /api/campaign/add', () => {
    it('creates a campaign; the name is under domain (quirk) and name', async () => {
      const { user, apiKey } = await createTestUser();
      const s = slug();
      const res = await client(app.url, apiKey).post<{ id: number }>('/api/campaign/add', {
        name: 'Spring sale',
        slug: s,
        public: true,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: res.body.id,
        domain: 'Spring sale',
        name: 'Spring sale',
        public: true,
        rotator: `${PUBLIC}/r/${s}`,
        list: `${PUBLIC}/u/${user.username}/list-${res.body.id}`,
      });
      expect(res.body.id).to.be.a('number');
    });

    it('creates a private campaign without rotator from an empty body', async () => {
      const { user, apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post<{ id: number }>('/api/campaign/add', {});
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: res.body.id,
        domain: '',
        name: '',
        public: false,
        rotator: false,
        list: `${PUBLIC}/u/${user.username}/list-${res.body.id}`,
      });
    });

    it('answers 409 when the slug is taken, by anyone', async () => {
      const other = await createTestUser();
      const taken = (await createCampaign(app, other.apiKey, { slug: slug() })).rotator as string;
      const s = taken.split('/r/')[1];
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post('/api/campaign/add', { slug: s });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: `slug ${s} is already taken` });
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      [
        'slug is too short',
        { slug: 'ab' },
        'slug must be 3-64 letters, digits, hyphens or underscores',
      ],
      [
        'slug has a space',
        { slug: 'a b c' },
        'slug must be 3-64 letters, digits, hyphens or underscores',
      ],
      ['public is not a boolean', { public: 'maybe' }, 'public must be a boolean'],
      ['name is not a string', { name: 5 }, 'name must be a string'],
      [
        'name is too long',
        { name: 'n'.repeat(256) },
        'name length must be less than or equal to 255 characters long',
      ],
      ['a field is unknown', { rotator: true }, 'rotator is not allowed'],
    ];
    for (const [when, body, message] of invalid) {
      it(`answers 422 when ${when}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/campaign/add', body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
      });
    }
  });

  describe('GET /api/campaigns', () => {
    it('lists the caller campaigns newest first with the spec keys', async () => {
      const { user, apiKey } = await createTestUser();
      const s = slug();
      const first = await createCampaign(app, apiKey, { name: 'First', slug: s, public: true });
      const second = await createCampaign(app, apiKey, { name: 'Second' });
      const other = await createTestUser();
      await createCampaign(app, other.apiKey, { name: 'Not mine' });
      const res = await client(app.url, apiKey).get('/api/campaigns');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          campaigns: [
            {
              id: second.id,
              name: 'Second',
              public: false,
              rotator: false,
              list: `${PUBLIC}/u/${user.username}/list-${second.id}`,
            },
            {
              id: first.id,
              name: 'First',
              public: true,
              rotator: `${PUBLIC}/r/${s}`,
              list: `${PUBLIC}/u/${user.username}/list-${first.id}`,
            },
          ],
        },
      });
    });

    it('answers 400 for a bad page', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get('/api/campaigns?page=x');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'Invalid query: page must be a number',
      });
    });
  });

  describe('PUT /api/campaign/:id/update', () => {
    it('answers the updated campaign with the name under domain', async () => {
      const { user, apiKey } = await createTestUser();
      const campaign = await createCampaign(app, apiKey, { name: 'Old' });
      const s = slug();
      const res = await client(app.url, apiKey).put(`/api/campaign/${campaign.id}/update`, {
        name: 'New',
        slug: s,
        public: true,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: campaign.id,
        domain: 'New',
        name: 'New',
        public: true,
        rotator: `${PUBLIC}/r/${s}`,
        list: `${PUBLIC}/u/${user.username}/list-${campaign.id}`,
      });
      const list = await client(app.url, apiKey).get<{ data: { campaigns: unknown[] } }>(
        '/api/campaigns',
      );
      expect(list.body.data.campaigns).to.deep.equal([
        {
          id: campaign.id,
          name: 'New',
          public: true,
          rotator: `${PUBLIC}/r/${s}`,
          list: `${PUBLIC}/u/${user.username}/list-${campaign.id}`,
        },
      ]);
    });

    it('keeps the slug and public flag when omitted, removes the rotator with slug null', async () => {
      const { apiKey } = await createTestUser();
      const s = slug();
      const campaign = await createCampaign(app, apiKey, { slug: s, public: true });
      const api = client(app.url, apiKey);
      let res = await api.put<{ rotator: unknown; public: boolean }>(
        `/api/campaign/${campaign.id}/update`,
        { name: 'Renamed' },
      );
      expect(res.body.rotator).to.equal(`${PUBLIC}/r/${s}`);
      expect(res.body.public).to.equal(true);
      res = await api.put(`/api/campaign/${campaign.id}/update`, { name: 'Renamed', slug: null });
      expect(res.body.rotator).to.equal(false);
      // The freed slug can be taken again.
      expect((await api.post('/api/campaign/add', { slug: s })).status).to.equal(200);
    });

    it('accepts the campaign own slug and refuses another campaign slug with 409', async () => {
      const { apiKey } = await createTestUser();
      const mine = slug();
      const theirs = slug();
      const campaign = await createCampaign(app, apiKey, { slug: mine });
      await createCampaign(app, (await createTestUser()).apiKey, { slug: theirs });
      const api = client(app.url, apiKey);
      const same = await api.put(`/api/campaign/${campaign.id}/update`, { name: 'x', slug: mine });
      expect(same.status).to.equal(200);
      const res = await api.put(`/api/campaign/${campaign.id}/update`, { name: 'x', slug: theirs });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: `slug ${theirs} is already taken` });
    });

    it('answers 422 when the name is missing', async () => {
      const { apiKey } = await createTestUser();
      const campaign = await createCampaign(app, apiKey);
      const res = await client(app.url, apiKey).put(`/api/campaign/${campaign.id}/update`, {
        public: true,
      });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'name is required' });
    });

    it('answers 404 for another user campaign and an unknown id', async () => {
      const theirs = await createCampaign(app, (await createTestUser()).apiKey, { name: 'keep' });
      const { apiKey } = await createTestUser();
      for (const id of [theirs.id, 999_999_999]) {
        const res = await client(app.url, apiKey).put(`/api/campaign/${id}/update`, { name: 'x' });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Campaign not found' });
      }
    });
  });

  describe('POST /api/campaign/:campaignid/assign/:linkid', () => {
    it('assigns a link; twice is not an error', async () => {
      const { apiKey } = await createTestUser();
      const campaign = await createCampaign(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      for (let i = 0; i < 2; i += 1) {
        const res = await client(app.url, apiKey).post(
          `/api/campaign/${campaign.id}/assign/${link.id}`,
        );
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({
          error: 0,
          message: 'Link has been successfully assigned to the campaign.',
        });
      }
      expect((await Link.findOne({ id: link.id }).lean<LinkRecord>())?.campaignId).to.equal(
        campaign.id,
      );
    });

    it('moves a link from its campaign to the new one', async () => {
      const { apiKey } = await createTestUser();
      const a = await createCampaign(app, apiKey, { public: true });
      const b = await createCampaign(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      await assignToCampaign(app, apiKey, a.id, link.id);
      await assignToCampaign(app, apiKey, b.id, link.id);
      const list = await visit(app, new URL(a.list).pathname, {
        headers: { accept: 'application/json' },
      });
      expect((list.body as { data: { links: unknown[] } }).data.links).to.deep.equal([]);
      expect((await Link.findOne({ id: link.id }).lean<LinkRecord>())?.campaignId).to.equal(b.id);
    });

    it('answers 404 for a link that is unknown or another user', async () => {
      const { apiKey } = await createTestUser();
      const campaign = await createCampaign(app, apiKey);
      const other = await createTestUser();
      const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/' });
      for (const linkId of [theirs.id, 999_999_999]) {
        const res = await client(app.url, apiKey).post(
          `/api/campaign/${campaign.id}/assign/${linkId}`,
        );
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Link not found' });
      }
      expect((await Link.findOne({ id: theirs.id }).lean<LinkRecord>())?.campaignId).to.equal(null);
    });

    it('answers 404 for a campaign that is unknown or another user', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const theirs = await createCampaign(app, (await createTestUser()).apiKey);
      for (const campaignId of [theirs.id, 999_999_999]) {
        const res = await client(app.url, apiKey).post(
          `/api/campaign/${campaignId}/assign/${link.id}`,
        );
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Campaign not found' });
      }
    });

    it('answers 404 for ids that are not positive integers', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post('/api/campaign/x/assign/0');
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.include({ error: 1, message: 'Not found' });
    });
  });

  describe('DELETE /api/campaign/:id/delete', () => {
    it('deletes the campaign and its rotator counter and unassigns its links, which stay', async () => {
      const { apiKey } = await createTestUser();
      const s = slug();
      const campaign = await createCampaign(app, apiKey, { slug: s, public: true });
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      await assignToCampaign(app, apiKey, campaign.id, link.id);
      expect((await visit(app, `/r/${s}`)).status).to.equal(302);
      const counter = rotatorCounterKey(app.deps.keys, campaign.id);
      expect(await app.deps.redis.exists(counter)).to.equal(1);
      const res = await client(app.url, apiKey).delete(`/api/campaign/${campaign.id}/delete`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Campaign has been successfully deleted.',
      });
      expect((await Link.findOne({ id: link.id }).lean<LinkRecord>())?.campaignId).to.equal(null);
      expect((await visit(app, `/r/${s}`)).status).to.equal(404);
      expect(await app.deps.redis.exists(counter)).to.equal(0);
      expect((await visit(app, new URL(campaign.list).pathname)).status).to.equal(404);
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    });

    it('answers 404 for another user campaign, an unknown id and a second delete', async () => {
      const theirs = await createCampaign(app, (await createTestUser()).apiKey);
      const { apiKey } = await createTestUser();
      const mine = await createCampaign(app, apiKey);
      await client(app.url, apiKey).delete(`/api/campaign/${mine.id}/delete`);
      for (const id of [theirs.id, mine.id, 999_999_999]) {
        const res = await client(app.url, apiKey).delete(`/api/campaign/${id}/delete`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Campaign not found' });
      }
    });
  });
});
