import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { createChannel } from './support/channels';
import { client } from './support/http';
import { createTestUser } from './support/users';

describe('channels API', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('POST /api/channel/add', () => {
    it('creates a channel and answers the full record', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post<{ id: number }>('/api/channel/add', {
        name: 'Launch',
        description: 'Everything for the launch',
        color: '#1A2b3C',
        starred: true,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: res.body.id,
        name: 'Launch',
        description: 'Everything for the launch',
        color: '#1A2b3C',
        starred: true,
      });
      expect(res.body.id).to.be.a('number');
    });

    it('defaults description and color to empty and starred to false', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post<{ id: number }>('/api/channel/add', {
        name: 'Plain',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        id: res.body.id,
        name: 'Plain',
        description: '',
        color: '',
        starred: false,
      });
    });

    const colorMessage = 'color must be a HEX color such as #1A2B3C';
    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['name is missing', { color: '#000000' }, 'name is required'],
      ['name is empty', { name: '' }, 'name is not allowed to be empty'],
      ['color is a word', { name: 'x', color: 'red' }, colorMessage],
      ['color is short', { name: 'x', color: '#12345' }, colorMessage],
      ['color is not hex', { name: 'x', color: '#GGGGGG' }, colorMessage],
      ['color has no #', { name: 'x', color: '112233' }, colorMessage],
      ['starred is not a boolean', { name: 'x', starred: 'maybe' }, 'starred must be a boolean'],
      [
        'description is too long',
        { name: 'x', description: 'd'.repeat(1001) },
        'description length must be less than or equal to 1000 characters long',
      ],
      ['a field is unknown', { name: 'x', items: [] }, 'items is not allowed'],
    ];
    for (const [when, body, message] of invalid) {
      it(`answers 422 when ${when}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/channel/add', body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.equal({ error: 1, message });
      });
    }
  });

  describe('GET /api/channels', () => {
    it('lists the caller channels newest first', async () => {
      const { apiKey } = await createTestUser();
      const a = await createChannel(app, apiKey, { name: 'A', color: '#FF0000' });
      const b = await createChannel(app, apiKey, { name: 'B', starred: true });
      await createChannel(app, (await createTestUser()).apiKey, { name: 'Not mine' });
      const res = await client(app.url, apiKey).get('/api/channels');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          channels: [
            { id: b.id, name: 'B', description: '', color: '', starred: true },
            { id: a.id, name: 'A', description: '', color: '#FF0000', starred: false },
          ],
        },
      });
    });
  });

  describe('PUT /api/channel/:id/update', () => {
    it('changes only the fields sent', async () => {
      const { apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey, {
        name: 'Old',
        description: 'keep',
        color: '#000000',
      });
      const res = await client(app.url, apiKey).put(`/api/channel/${channel.id}/update`, {
        name: 'New',
        starred: true,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Channel has been successfully updated.',
      });
      const list = await client(app.url, apiKey).get<{ data: { channels: unknown[] } }>(
        '/api/channels',
      );
      expect(list.body.data.channels).to.deep.equal([
        { id: channel.id, name: 'New', description: 'keep', color: '#000000', starred: true },
      ]);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['the body is empty', {}, 'at least one of name, description, color, starred is required'],
      ['color is bad', { color: 'blue' }, 'color must be a HEX color such as #1A2B3C'],
      // GemPixel's leniency: a blank name leaves the name unchanged, so nothing is left to do.
      [
        'name is empty',
        { name: '' },
        'at least one of name, description, color, starred is required',
      ],
    ];
    for (const [when, body, message] of invalid) {
      it(`answers 422 when ${when}`, async () => {
        const { apiKey } = await createTestUser();
        const channel = await createChannel(app, apiKey);
        const res = await client(app.url, apiKey).put(`/api/channel/${channel.id}/update`, body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.equal({ error: 1, message });
      });
    }

    it('answers 404 for another user channel and an unknown id', async () => {
      const theirs = await createChannel(app, (await createTestUser()).apiKey);
      const { apiKey } = await createTestUser();
      for (const id of [theirs.id, 999_999_999]) {
        const res = await client(app.url, apiKey).put(`/api/channel/${id}/update`, { name: 'x' });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({ error: 1, message: 'Channel not found' });
      }
    });
  });
});
