import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, DATE_TIME, type ListBody } from './support/http';
import { createTestUser } from './support/users';

interface PixelItem {
  id: number;
  type: string;
  name: string;
  tag: string;
  date: string;
}
type PixelList = ListBody<'pixels', PixelItem>;

describe('pixels', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function owner() {
    const { apiKey } = await createTestUser();
    return client(app.url, apiKey);
  }

  async function addPixel(api: ReturnType<typeof client>, body: Record<string, unknown>) {
    const res = await api.post<{ id: number }>('/api/pixel/add', body);
    expect(res.status, res.text).to.equal(200);
    return res.body.id;
  }

  async function listed(api: ReturnType<typeof client>) {
    const res = await api.get<PixelList>('/api/pixels');
    expect(res.status).to.equal(200);
    return res.body.data.pixels;
  }

  describe('POST /api/pixel/add', () => {
    it('creates a pixel, answering 200 with only its id', async () => {
      const api = await owner();
      const before = Date.now();
      const res = await api.post('/api/pixel/add', {
        type: 'gtmpixel',
        name: 'Main container',
        tag: 'gtm-ab12cd3',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, id: res.body.id });
      expect(res.body.id).to.be.a('number');
      const [pixel] = await listed(api);
      expect(pixel).to.deep.equal({
        id: res.body.id,
        type: 'gtmpixel',
        name: 'Main container',
        tag: 'GTM-AB12CD3',
        date: pixel?.date,
      });
      expect(pixel?.date).to.match(DATE_TIME);
      const stamp = Date.parse(`${pixel?.date.replace(' ', 'T')}Z`);
      expect(stamp).to.be.within(before - 1000, Date.now());
    });

    it('accepts every one of the thirteen types with a tag of its format', async () => {
      const api = await owner();
      const tags: Record<string, string> = {
        gtmpixel: 'GTM-AB12CD3',
        gapixel: 'G-AB12CD34EF',
        fbpixel: '123456789012345',
        adsnetworkpixel: 'AW-123456789',
        professionalpixel: '1234567',
        microblogpixel: 'o1a2b',
        retargetpixel: 'ADV123:PIX456',
        qapixel: '0123456789abcdef0123456789abcdef',
        pinboard: '2612345678901',
        searchengine: '12345678',
        messenger: '0f1e2d3c-aaaa-bbbb-cccc-000011112222',
        forum: 't2_abc123',
        shortvideo: 'C4ABCDEFGH1234567890',
      };
      for (const [type, tag] of Object.entries(tags))
        await addPixel(api, { type, name: type, tag });
      const pixels = await listed(api);
      expect(pixels.map((p) => [p.type, p.tag]).reverse()).to.deep.equal(Object.entries(tags));
    });

    const failures: Array<[string, Record<string, unknown>, string]> = [
      ['type is missing', { name: 'n', tag: 'x' }, 'type is required'],
      ['name is missing', { type: 'forum', tag: 'x' }, 'name is required'],
      ['tag is missing', { type: 'forum', name: 'n' }, 'tag is required'],
      ['name is empty', { type: 'forum', name: '  ', tag: 'x' }, 'name is not allowed to be empty'],
      ['name is not a string', { type: 'forum', name: 7, tag: 'x' }, 'name must be a string'],
      ['tag is not a string', { type: 'forum', name: 'n', tag: 12345 }, 'tag must be a string'],
      [
        'name is longer than 100 characters',
        { type: 'forum', name: 'n'.repeat(101), tag: 'x' },
        'name length must be less than or equal to 100 characters long',
      ],
      [
        'the tag does not fit its type',
        { type: 'gapixel', name: 'n', tag: 'GTM-AB12CD3' },
        'tag for gapixel must be a measurement id such as G-AB12CD34EF or a property id such as UA-1234567-1',
      ],
      [
        'a free-form tag holds markup',
        { type: 'retargetpixel', name: 'n', tag: '"><script>' },
        'tag for retargetpixel must be 1 to 128 printable characters without spaces, quotes, backslashes, ampersands or angle brackets',
      ],
      [
        'an unknown field is sent',
        { type: 'forum', name: 'n', tag: 'x', extra: 1 },
        'extra is not allowed',
      ],
    ];
    for (const [label, body, message] of failures) {
      it(`answers 422 when ${label}`, async () => {
        const api = await owner();
        const res = await api.post('/api/pixel/add', body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
        expect(await listed(api)).to.deep.equal([]);
      });
    }

    it('answers 422 naming the thirteen types for an unknown type', async () => {
      const api = await owner();
      const res = await api.post('/api/pixel/add', { type: 'googlepixel', name: 'n', tag: 'x' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        message:
          'type must be one of [gtmpixel, gapixel, fbpixel, adsnetworkpixel, professionalpixel, microblogpixel, retargetpixel, qapixel, pinboard, searchengine, messenger, forum, shortvideo]',
      });
    });
  });

  describe('GET /api/pixels', () => {
    it('lists only the caller pixels, newest first, in the list envelope', async () => {
      const api = await owner();
      const stranger = await owner();
      await addPixel(stranger, { type: 'forum', name: 'theirs', tag: 'x1' });
      const first = await addPixel(api, { type: 'fbpixel', name: 'One', tag: '123456789012' });
      const second = await addPixel(api, { type: 'searchengine', name: 'Two', tag: '5555' });
      const res = await api.get<PixelList>('/api/pixels');
      expect(res.status).to.equal(200);
      const dates = res.body.data.pixels.map((p) => p.date);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          pixels: [
            { id: second, type: 'searchengine', name: 'Two', tag: '5555', date: dates[0] },
            { id: first, type: 'fbpixel', name: 'One', tag: '123456789012', date: dates[1] },
          ],
        },
      });
      for (const date of dates) expect(date).to.match(DATE_TIME);
    });

    it('pages with limit and page, and answers 400 for a bad limit', async () => {
      const api = await owner();
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        ids.push(await addPixel(api, { type: 'forum', name: `p${i}`, tag: `t${i}` }));
      }
      const page2 = await api.get<PixelList>('/api/pixels?limit=2&page=2');
      expect(page2.body.data).to.include({ result: 3, perpage: 2, currentpage: 2, maxpage: 2 });
      expect(page2.body.data.pixels.map((p) => p.id)).to.deep.equal([ids[0]]);
      const past = await api.get<PixelList>('/api/pixels?limit=2&page=3');
      expect(past.body.data.pixels).to.deep.equal([]);
      const bad = await api.get('/api/pixels?limit=-1');
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.include({
        error: 1,
        message: 'Invalid query: limit must be greater than or equal to 1',
      });
    });
  });

  describe('PUT /api/pixel/:id/update', () => {
    it('changes tag and name, judging the tag by the stored type', async () => {
      const api = await owner();
      const id = await addPixel(api, { type: 'gtmpixel', name: 'Old', tag: 'GTM-AAAA111' });
      const res = await api.put(`/api/pixel/${id}/update`, { name: 'New', tag: 'gtm-bbbb222' });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, message: 'Pixel has been successfully updated.' });
      const [pixel] = await listed(api);
      expect(pixel).to.deep.include({ id, type: 'gtmpixel', name: 'New', tag: 'GTM-BBBB222' });
    });

    it('keeps the name when only the tag is sent', async () => {
      const api = await owner();
      const id = await addPixel(api, { type: 'forum', name: 'Kept', tag: 'a1' });
      await api.put(`/api/pixel/${id}/update`, { tag: 'a2' });
      const [pixel] = await listed(api);
      expect(pixel).to.deep.include({ id, name: 'Kept', tag: 'a2' });
    });

    const failures: Array<[string, Record<string, unknown>, string]> = [
      ['tag is missing', { name: 'n' }, 'tag is required'],
      ['type is sent', { type: 'forum', tag: 'GTM-AAAA111' }, 'type cannot be changed'],
      [
        'the tag does not fit the stored type',
        { tag: '123' },
        'tag for gtmpixel must be a container id such as GTM-AB12CD3',
      ],
      ['name is not a string', { name: [], tag: 'GTM-AAAA111' }, 'name must be a string'],
    ];
    for (const [label, body, message] of failures) {
      it(`answers 422 when ${label}, changing nothing`, async () => {
        const api = await owner();
        const id = await addPixel(api, { type: 'gtmpixel', name: 'Same', tag: 'GTM-AAAA111' });
        const res = await api.put(`/api/pixel/${id}/update`, body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
        const [pixel] = await listed(api);
        expect(pixel).to.deep.include({ type: 'gtmpixel', name: 'Same', tag: 'GTM-AAAA111' });
      });
    }

    it('answers 404 for an unknown id and for another user pixel, which stays', async () => {
      const api = await owner();
      const other = await owner();
      const foreign = await addPixel(other, { type: 'forum', name: 'Theirs', tag: 'keep' });
      for (const id of [999_999_999, foreign]) {
        const res = await api.put(`/api/pixel/${id}/update`, { tag: 'mine' });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Pixel not found' });
      }
      expect((await listed(other))[0]).to.deep.include({ name: 'Theirs', tag: 'keep' });
    });
  });

  describe('DELETE /api/pixel/:id/delete', () => {
    it('deletes the pixel', async () => {
      const api = await owner();
      const id = await addPixel(api, { type: 'forum', name: 'Gone', tag: 'x' });
      const res = await api.delete(`/api/pixel/${id}/delete`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, message: 'Pixel has been successfully deleted.' });
      expect(await listed(api)).to.deep.equal([]);
    });

    it('answers 404 for an unknown id, a non-numeric id and another user pixel', async () => {
      const api = await owner();
      const other = await owner();
      const foreign = await addPixel(other, { type: 'forum', name: 'Theirs', tag: 'x' });
      for (const id of [999_999_999, foreign]) {
        const res = await api.delete(`/api/pixel/${id}/delete`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Pixel not found' });
      }
      const bad = await api.delete('/api/pixel/0/delete');
      expect(bad.status).to.equal(404);
      expect(bad.body).to.deep.include({ error: 1, message: 'Not found' });
      expect((await listed(other)).map((p) => p.id)).to.deep.equal([foreign]);
    });
  });
});
