import { expect } from 'chai';
import { unassignEverywhere } from '../src/channels/channels.service';
import { formatDate } from '../src/shared/format/dates';
import { startTestApp, type TestApp } from './support/app-harness';
import { createBio } from './support/bio';
import { assignToChannel, createChannel, insertQrCode } from './support/channels';
import { client, DATE } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser } from './support/users';

const PUBLIC = 'http://linkqr.test';

interface ItemsBody {
  data: { result: number; items: Array<{ type: string; id: number; date: string }> };
}

describe('channel items', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('assign and GET /api/channel/:id', () => {
    it('lists links, bio pages and QR codes, most recently assigned first', async () => {
      const { user, apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/l', title: 'L' });
      const untitled = await createLink(app, apiKey, { url: 'https://example.com/u' });
      const bio = await createBio(app, apiKey, { name: 'My bio' });
      const qr = await insertQrCode(user.id, 'My QR');
      await assignToChannel(app, apiKey, channel.id, 'links', link.id);
      await assignToChannel(app, apiKey, channel.id, 'bio', bio.id);
      await assignToChannel(app, apiKey, channel.id, 'qr', qr.id);
      await assignToChannel(app, apiKey, channel.id, 'links', untitled.id);
      const res = await client(app.url, apiKey).get<ItemsBody>(`/api/channel/${channel.id}`);
      expect(res.status).to.equal(200);
      const [d4, d3, d2, d1] = res.body.data.items.map((i) => i.date);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 4,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          items: [
            {
              type: 'links',
              id: untitled.id,
              title: 'https://example.com/u',
              preview: 'https://example.com/u',
              link: untitled.shorturl,
              date: d4,
            },
            {
              type: 'qr',
              id: qr.id,
              title: 'My QR',
              preview: `${PUBLIC}/qr/${qr.alias}`,
              link: `${PUBLIC}/qr/${qr.alias}`,
              date: formatDate(qr.createdAt),
            },
            {
              type: 'bio',
              id: bio.id,
              title: 'My bio',
              preview: bio.link,
              link: bio.link,
              date: d2,
            },
            {
              type: 'links',
              id: link.id,
              title: 'L',
              preview: 'https://example.com/l',
              link: link.shorturl,
              date: d1,
            },
          ],
        },
      });
      for (const date of [d1, d2, d3, d4]) expect(date).to.match(DATE);
    });

    it('pages the items', async () => {
      const { apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey);
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const link = await createLink(app, apiKey, { url: `https://example.com/${i}` });
        await assignToChannel(app, apiKey, channel.id, 'links', link.id);
        ids.push(link.id);
      }
      const res = await client(app.url, apiKey).get<{
        data: Record<string, unknown> & { items: Array<{ id: number }> };
      }>(`/api/channel/${channel.id}?limit=2&page=2`);
      const { items, ...info } = res.body.data;
      expect(info).to.deep.equal({
        result: 3,
        perpage: 2,
        currentpage: 2,
        nextpage: 2,
        maxpage: 2,
      });
      expect(items.map((i) => i.id)).to.deep.equal([ids[0]]);
    });

    it('assigns an item twice without error and lists it once', async () => {
      const { apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      for (let i = 0; i < 2; i += 1) {
        const res = await client(app.url, apiKey).post(
          `/api/channel/${channel.id}/assign/links/${link.id}`,
        );
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({
          error: 0,
          message: 'Item has been successfully assigned to the channel.',
        });
      }
      const res = await client(app.url, apiKey).get<ItemsBody>(`/api/channel/${channel.id}`);
      expect(res.body.data.items.map((i) => i.id)).to.deep.equal([link.id]);
    });

    it('lets an item sit in several channels', async () => {
      const { apiKey } = await createTestUser();
      const a = await createChannel(app, apiKey);
      const b = await createChannel(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      await assignToChannel(app, apiKey, a.id, 'links', link.id);
      await assignToChannel(app, apiKey, b.id, 'links', link.id);
      for (const channel of [a, b]) {
        const res = await client(app.url, apiKey).get<ItemsBody>(`/api/channel/${channel.id}`);
        expect(res.body.data.items.map((i) => i.id)).to.deep.equal([link.id]);
      }
    });

    it('answers 422 for an unknown type', async () => {
      const { apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey);
      const res = await client(app.url, apiKey).post(`/api/channel/${channel.id}/assign/pixel/1`);
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: 'type must be one of links, bio, qr' });
    });

    it('answers 404 for items that are unknown or another user, of every type', async () => {
      const other = await createTestUser();
      const theirLink = await createLink(app, other.apiKey, { url: 'https://example.com/' });
      const theirBio = await createBio(app, other.apiKey, { name: 'Theirs' });
      const theirQr = await insertQrCode(other.user.id, 'Theirs');
      const { apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey);
      const attempts: Array<[string, number]> = [
        ['links', theirLink.id],
        ['bio', theirBio.id],
        ['qr', theirQr.id],
        ['links', 999_999_999],
        ['bio', 999_999_999],
        ['qr', 999_999_999],
      ];
      for (const [type, id] of attempts) {
        const res = await client(app.url, apiKey).post(
          `/api/channel/${channel.id}/assign/${type}/${id}`,
        );
        expect(res.status, `${type} ${id}`).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Item not found' });
      }
    });

    it('answers 404 for a channel that is unknown or another user', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const theirs = await createChannel(app, (await createTestUser()).apiKey);
      for (const id of [theirs.id, 999_999_999]) {
        const assign = await client(app.url, apiKey).post(
          `/api/channel/${id}/assign/links/${link.id}`,
        );
        expect(assign.status).to.equal(404);
        expect(assign.body).to.deep.include({ error: 1, message: 'Channel not found' });
        const items = await client(app.url, apiKey).get(`/api/channel/${id}`);
        expect(items.status).to.equal(404);
        expect(items.body).to.deep.include({ error: 1, message: 'Channel not found' });
      }
    });

    it('answers 404 for ids that are not positive integers', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post('/api/channel/1/assign/links/abc');
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.include({ error: 1, message: 'Not found' });
    });
  });

  describe('deletes', () => {
    it('deleting a channel unassigns its items and deletes none of them', async () => {
      const { apiKey } = await createTestUser();
      const channel = await createChannel(app, apiKey);
      const kept = await createChannel(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const bio = await createBio(app, apiKey, { name: 'Bio' });
      await assignToChannel(app, apiKey, channel.id, 'links', link.id);
      await assignToChannel(app, apiKey, channel.id, 'bio', bio.id);
      await assignToChannel(app, apiKey, kept.id, 'links', link.id);
      const res = await client(app.url, apiKey).delete(`/api/channel/${channel.id}/delete`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Channel has been successfully deleted.',
      });
      expect((await client(app.url, apiKey).get(`/api/channel/${channel.id}`)).status).to.equal(
        404,
      );
      expect((await client(app.url, apiKey).get(`/api/url/${link.id}`)).status).to.equal(200);
      expect((await visit(app, `/b/${bio.alias}`)).status).to.equal(200);
      const other = await client(app.url, apiKey).get<ItemsBody>(`/api/channel/${kept.id}`);
      expect(other.body.data.items.map((i) => i.id)).to.deep.equal([link.id]);
    });

    it('answers 404 when deleting another user channel or an unknown one', async () => {
      const theirs = await createChannel(app, (await createTestUser()).apiKey);
      const { apiKey } = await createTestUser();
      for (const id of [theirs.id, 999_999_999]) {
        const res = await client(app.url, apiKey).delete(`/api/channel/${id}/delete`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Channel not found' });
      }
    });

    it('a deleted link, bio page or QR code disappears from every channel', async () => {
      const { user, apiKey } = await createTestUser();
      const a = await createChannel(app, apiKey);
      const b = await createChannel(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const bio = await createBio(app, apiKey, { name: 'Bio' });
      const qr = await insertQrCode(user.id, 'QR');
      const survivor = await createLink(app, apiKey, { url: 'https://example.com/stays' });
      for (const channel of [a, b]) {
        await assignToChannel(app, apiKey, channel.id, 'links', link.id);
        await assignToChannel(app, apiKey, channel.id, 'bio', bio.id);
        await assignToChannel(app, apiKey, channel.id, 'qr', qr.id);
        await assignToChannel(app, apiKey, channel.id, 'links', survivor.id);
      }
      await client(app.url, apiKey).delete(`/api/url/${link.id}/delete`);
      await client(app.url, apiKey).delete(`/api/bio/${bio.id}/delete`);
      await unassignEverywhere('qr', qr.id);
      for (const channel of [a, b]) {
        const res = await client(app.url, apiKey).get<ItemsBody>(`/api/channel/${channel.id}`);
        expect(res.body.data.result).to.equal(1);
        expect(res.body.data.items.map((i) => [i.type, i.id])).to.deep.equal([
          ['links', survivor.id],
        ]);
      }
    });
  });
});
