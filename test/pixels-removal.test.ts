import { expect } from 'chai';
import { mongo } from 'mongoose';
import { Link } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createTestUser } from './support/users';

describe('deleting a pixel while its links change (issue 22, A3)', () => {
  let app: TestApp;
  const realUpdateOne = mongo.Collection.prototype.updateOne;
  before(async () => {
    app = await startTestApp();
  });
  afterEach(() => {
    mongo.Collection.prototype.updateOne = realUpdateOne;
  });
  after(() => app.close());

  it('keeps a pixel added to the link between the read and the rewrite', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const pixel = async (name: string) =>
      (await api.post<{ id: number }>('/api/pixel/add', { type: 'forum', name, tag: 'x' })).body.id;
    const [gone, kept, added] = [await pixel('gone'), await pixel('kept'), await pixel('added')];
    const created = await api.post<{ id: number }>('/api/url/add', {
      url: 'https://example.com/pixels',
      pixels: [gone, kept],
    });
    expect(created.status, created.text).to.equal(200);
    const linkId = created.body.id;
    // Another request adds a pixel to the link just before the removal's first write lands.
    let raced = false;
    mongo.Collection.prototype.updateOne = async function (
      this: mongo.Collection,
      ...args: Parameters<typeof realUpdateOne>
    ) {
      if (!raced && this.collectionName === 'links') {
        raced = true;
        await realUpdateOne.call(this, { id: linkId }, { $set: { pixelIds: [gone, kept, added] } });
      }
      return realUpdateOne.apply(this, args);
    } as typeof realUpdateOne;

    const res = await api.delete(`/api/pixel/${gone}/delete`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ error: 0, message: 'Pixel has been successfully deleted.' });
    expect(raced).to.equal(true);
    const link = await Link.findOne({ id: linkId }).lean();
    expect(link?.pixelIds).to.deep.equal([kept, added]);
  });
});
