import { expect } from 'chai';
import { campaignCacheFor } from '../src/campaigns/campaign-cache';
import { domainCacheFor } from '../src/domains/domain-cache';
import { linkCacheFor, linkCacheKey } from '../src/links/link-cache';
import { startTestApp, type TestApp } from './support/app-harness';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client } from './support/http';
import { createLink, eventually, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

/**
 * Two API processes (two apps, each with its own Redis connection and caches): what one writes,
 * the other stops serving from memory. The caches' clock stands still, so only an invalidation
 * (never a TTL) can make an entry go.
 */
describe('caches kept coherent across API processes', () => {
  let writer: TestApp;
  let reader: TestApp;
  before(async () => {
    const cacheClock = { now: () => 1_000_000 };
    writer = await startTestApp({}, { cacheClock });
    reader = await startTestApp({}, { cacheClock });
    await linkCacheFor(writer.deps).whenLive();
    await linkCacheFor(reader.deps).whenLive();
  });
  after(async () => {
    await writer.close();
    await reader.close();
  });

  it('campaign rotators: a renamed or deleted slug stops answering in the other process', async () => {
    const { apiKey } = await createTestUser();
    const slug = uniqueName('rot');
    const campaign = await createCampaign(writer, apiKey, { slug });
    const link = await createLink(writer, apiKey, { url: 'https://example.com/rotated' });
    await assignToCampaign(writer, apiKey, campaign.id, link.id);
    expect((await visit(reader, `/r/${slug}`)).status).to.equal(302);
    expect(campaignCacheFor(reader.deps).peek(slug)).to.not.equal(undefined);

    const renamed = uniqueName('rot');
    const api = client(writer.url, apiKey);
    const res = await api.put(`/api/campaign/${campaign.id}/update`, {
      name: 'Renamed',
      slug: renamed,
    });
    expect(res.status, res.text).to.equal(200);
    await eventually(
      async () => (await visit(reader, `/r/${slug}`)).status === 404,
      'the old slug is dropped',
    );
    expect((await visit(reader, `/r/${renamed}`)).status).to.equal(302);

    await api.delete(`/api/campaign/${campaign.id}/delete`);
    await eventually(
      async () => (await visit(reader, `/r/${renamed}`)).status === 404,
      'the deleted campaign is dropped',
    );
  });

  it('branded domains: an update or a deletion reaches the other process', async () => {
    const { apiKey } = await createTestUser();
    const api = client(writer.url, apiKey);
    const domain = uniqueDomain();
    const host = new URL(domain).hostname;
    const created = await api.post<{ id: number }>('/api/domain/add', {
      domain,
      redirectroot: 'https://www.example.com/one',
    });
    expect(created.status, created.text).to.equal(200);
    expect((await requestWithHost(reader.url, '/', host)).location).to.equal(
      'https://www.example.com/one',
    );
    expect(domainCacheFor(reader.deps).peek(host)).to.not.equal(undefined);

    await api.put(`/api/domain/${created.body.id}/update`, {
      redirectroot: 'https://www.example.com/two',
    });
    await eventually(
      async () =>
        (await requestWithHost(reader.url, '/', host)).location === 'https://www.example.com/two',
      'the update reaches the other process',
    );
    await api.delete(`/api/domain/${created.body.id}/delete`);
    await eventually(
      async () => (await requestWithHost(reader.url, '/', host)).status === 404,
      'the deletion reaches the other process',
    );
  });

  it('short links: a flood of unknown aliases does not push a popular link out', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(writer, apiKey, { url: 'https://example.com/popular' });
    const cache = linkCacheFor(reader.deps);
    // A reconnection of the cache bus rightly forgets everything (see SharedCache); on a loaded
    // machine one can fall in the flood, and then the flood is run again: what is under test is
    // whether misses push a hit out, not whether a reconnect does.
    const forgetAll = cache.forgetAll.bind(cache);
    let forgotten = 0;
    cache.forgetAll = () => {
      forgotten += 1;
      forgetAll();
    };
    let flood: string[] = [];
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const before = forgotten;
        expect((await visit(reader, `/${link.alias}`)).status).to.equal(302);
        flood = Array.from({ length: 400 }, () => uniqueName('nope'));
        for (let i = 0; i < flood.length; i += 20) {
          const batch = flood.slice(i, i + 20).map((alias) => visit(reader, `/${alias}`));
          for (const res of await Promise.all(batch)) expect(res.status).to.equal(404);
        }
        // A subscriber that closed near the end is forgotten only once it is back: wait for that,
        // so the check below reads a live cache (a closed bus answers every peek with a miss).
        await cache.whenLive();
        if (forgotten === before) break;
      }
    } finally {
      cache.forgetAll = forgetAll;
    }
    expect(cache.peek(linkCacheKey(0, flood[0] as string))).to.equal(null);
    expect(cache.peek(linkCacheKey(0, link.alias))?.url).to.equal('https://example.com/popular');
  });
});
