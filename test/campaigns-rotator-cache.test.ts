import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, linkCacheLive, visit } from './support/links';
import { captureQueries } from './support/query-plans';
import { createTestUser, uniqueName } from './support/users';

describe('campaign rotator: a click reads no link from MongoDB (issue 22, C3)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await linkCacheLive(app);
  });
  after(() => app.close());

  it('loads the campaign links once, then rotates from the caches; an assign is seen at once', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const slug = uniqueName('rot').replace(/[^a-z0-9-]/gi, '');
    const campaign = await api.post<{ id: number }>('/api/campaign/add', { name: 'r', slug });
    const links = [
      await createLink(app, apiKey, { url: 'https://example.com/a' }),
      await createLink(app, apiKey, { url: 'https://example.com/b' }),
      await createLink(app, apiKey, { url: 'https://example.com/c' }),
    ];
    for (const l of links.slice(0, 2)) {
      expect((await api.post(`/api/campaign/${campaign.body.id}/assign/${l.id}`)).status).to.equal(
        200,
      );
    }
    const targets = async (n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i += 1)
        out.push((await visit(app, `/r/${slug}`)).headers.get('location') ?? '');
      return out;
    };
    await targets(2);
    const capture = captureQueries();
    const seen = await targets(6);
    capture.stop();
    expect(new Set(seen)).to.deep.equal(
      new Set(['https://example.com/a', 'https://example.com/b']),
    );
    expect(capture.queries.filter((q) => q.collection === 'links')).to.deep.equal([]);

    expect(
      (await api.post(`/api/campaign/${campaign.body.id}/assign/${links[2]?.id}`)).status,
    ).to.equal(200);
    expect(new Set(await targets(3))).to.deep.equal(
      new Set(['https://example.com/a', 'https://example.com/b', 'https://example.com/c']),
    );
  });
});
