import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Pixel } from '../src/pixels/pixel.model';
import { ownedListsFor } from '../src/shared/db/owned-lists';
import { startTestApp, type TestApp } from './support/app-harness';
import { baseEnv } from './support/environment';
import { addOverlay } from './support/behaviour';
import { client, rawRequest, request, type ListBody } from './support/http';
import { createLink, eventually, visit } from './support/links';
import { startApiProcess, type ServiceProcess } from './support/processes';
import { createTestUser } from './support/users';

interface PixelItem {
  id: number;
  name: string;
}
type PixelList = ListBody<'pixels', PixelItem>;
type Api = ReturnType<typeof client>;

async function list(api: Api, query = ''): Promise<PixelList['data']> {
  const res = await api.get<PixelList>(`/api/pixels${query}`);
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

async function names(api: Api, query = ''): Promise<string[]> {
  return (await list(api, query)).pixels.map((p) => p.name);
}

async function addPixel(api: Api, name: string): Promise<number> {
  const res = await api.post<{ id: number }>('/api/pixel/add', {
    type: 'gapixel',
    name,
    tag: 'G-ABC123XYZ',
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.id;
}

/**
 * Pixel lists are answered from memory until a write. `local` is an app in this process whose
 * cache clock stands still (only an invalidation can drop an entry); `other` is the API started
 * as its own process, as `npm start` does, so its writes can reach `local` only through Redis.
 */
describe('cached pixel lists', () => {
  let local: TestApp;
  let other: ServiceProcess & { url: string };
  before(async () => {
    local = await startTestApp({}, { cacheClock: { now: () => 1_000_000 } });
    other = await startApiProcess(baseEnv());
    await ownedListsFor(local.deps).whenLive();
  });
  after(async () => {
    await other.stop();
    await local.close();
  });

  const cachedFor = (userId: number) => ownedListsFor(local.deps).peek(`Pixel:${userId}`);

  it("another process's add, rename and delete show in this process's list", async () => {
    const { user, apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    const there = client(other.url, apiKey);
    const first = await addPixel(here, 'first');
    expect(await names(here)).to.deep.equal(['first']);
    expect(cachedFor(user.id)).to.not.equal(undefined);

    await addPixel(there, 'second');
    await eventually(
      async () => (await names(here)).join() === 'second,first',
      'the added pixel is listed',
    );
    const renamed = await there.put(`/api/pixel/${first}/update`, {
      name: 'renamed',
      tag: 'G-ABC123XYZ',
    });
    expect(renamed.status, renamed.text).to.equal(200);
    await eventually(
      async () => (await names(here)).join() === 'second,renamed',
      'the rename is listed',
    );
    expect((await there.delete(`/api/pixel/${first}/delete`)).status).to.equal(200);
    await eventually(
      async () => (await names(here)).join() === 'second',
      'the deleted pixel is gone',
    );
  });

  it("this process's writes reach a list the other process holds in memory", async () => {
    const { apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    const there = client(other.url, apiKey);
    const id = await addPixel(here, 'one');
    // A write through the raw driver bypasses every invalidation: once the other process keeps
    // answering the old name after one, its list is held in memory.
    let raw = 0;
    await eventually(async () => {
      await names(there);
      raw += 1;
      await Pixel.collection.updateOne({ id }, { $set: { name: `raw${raw}` } });
      return (await names(there))[0] !== `raw${raw}`;
    }, 'the other process caches the list');

    const res = await here.put(`/api/pixel/${id}/update`, { name: 'two', tag: 'G-ABC123XYZ' });
    expect(res.status, res.text).to.equal(200);
    await eventually(
      async () => (await names(there)).join() === 'two',
      'the rename reaches the other process',
    );
  });

  it('keeps each user to their own records, and every page of a list follows a write', async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const apiA = client(local.url, a.apiKey);
    const apiB = client(local.url, b.apiKey);
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) await addPixel(apiA, name);
    await addPixel(apiB, 'b1');

    expect(await names(apiA, '?limit=2')).to.deep.equal(['a5', 'a4']);
    expect(await names(apiA, '?limit=2&page=2')).to.deep.equal(['a3', 'a2']);
    expect(await names(apiA, '?limit=2&page=3')).to.deep.equal(['a1']);
    expect(await names(apiA)).to.deep.equal(['a5', 'a4', 'a3', 'a2', 'a1']);
    expect(await names(apiB)).to.deep.equal(['b1']);
    expect(await names(apiB, '?limit=2')).to.deep.equal(['b1']);
    // Answered again from memory, still each user's own.
    expect(await names(apiA, '?limit=2&page=2')).to.deep.equal(['a3', 'a2']);
    expect(await names(apiB)).to.deep.equal(['b1']);

    await addPixel(apiA, 'a6');
    expect(cachedFor(b.user.id)).to.not.equal(undefined);
    expect(await names(apiA, '?limit=2')).to.deep.equal(['a6', 'a5']);
    expect(await names(apiA, '?limit=2&page=2')).to.deep.equal(['a4', 'a3']);
    const last = await list(apiA, '?limit=2&page=3');
    expect(last.pixels.map((p) => p.name)).to.deep.equal(['a2', 'a1']);
    expect(last).to.include({ result: 6, perpage: 2, currentpage: 3, maxpage: 3, nextpage: 3 });
    expect(await names(apiB)).to.deep.equal(['b1']);
  });

  it('deleting a user in another process drops their cached list', async () => {
    const admin = await createTestUser({ admin: true });
    const { user, apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    await addPixel(here, 'doomed');
    expect(await names(here)).to.deep.equal(['doomed']);
    expect(cachedFor(user.id)).to.not.equal(undefined);

    const res = await client(other.url, admin.apiKey).delete(`/api/user/${user.id}/delete`);
    expect(res.status, res.text).to.equal(200);
    await eventually(async () => cachedFor(user.id) === undefined, 'the list is dropped');
    expect(await Pixel.countDocuments({ userId: user.id })).to.equal(0);
  });

  it('a model write whose filter names no user drops every cached list', async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const apiA = client(local.url, a.apiKey);
    const apiB = client(local.url, b.apiKey);
    const id = await addPixel(apiA, 'before');
    await addPixel(apiB, 'untouched');
    expect(await names(apiA)).to.deep.equal(['before']);
    expect(await names(apiB)).to.deep.equal(['untouched']);

    await Pixel.updateOne({ id }, { $set: { name: 'after' } });
    expect(cachedFor(a.user.id)).to.equal(undefined);
    expect(cachedFor(b.user.id)).to.equal(undefined);
    expect(await names(apiA)).to.deep.equal(['after']);
    expect(await names(apiB)).to.deep.equal(['untouched']);

    // Naming a user but moving the record to another changes two lists: every list is dropped.
    await Pixel.updateOne({ id, userId: a.user.id }, { $set: { userId: b.user.id } });
    expect(await names(apiA)).to.deep.equal([]);
    expect(await names(apiB)).to.deep.equal(['untouched', 'after']);
  });

  it('answers from memory with the JSON, content type and ETag of a fresh answer', async () => {
    const { apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    await addPixel(here, 'tagged');
    const fresh = await here.get<PixelList>('/api/pixels?limit=5');
    const cached = await here.get<PixelList>('/api/pixels?limit=5');
    expect(cached.text).to.equal(fresh.text);
    expect(fresh.body.data.pixels.map((p) => p.name)).to.deep.equal(['tagged']);
    for (const res of [fresh, cached]) {
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.headers.get('content-length')).to.equal(String(Buffer.byteLength(res.text)));
    }
    const etag = fresh.headers.get('etag') ?? '';
    expect(etag).to.match(/^W\/"/);
    expect(cached.headers.get('etag')).to.equal(etag);
    // node:http, since fetch adds `Cache-Control: no-cache` to a conditional request.
    const conditional = () =>
      rawRequest(local.url, '/api/pixels?limit=5', {
        method: 'GET',
        headers: { authorization: `Bearer ${apiKey}`, 'if-none-match': etag },
      });
    expect((await conditional()).status).to.equal(304);
    await addPixel(here, 'newer');
    const changed = await conditional();
    expect(changed.status).to.equal(200);
    expect(changed.text).to.include('newer');
  });

  it("an operator's splash:add through the CLI shows in a cached splash list", async () => {
    const { user, apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    const splash = async () => {
      const res = await here.get<ListBody<'splash', { name: string }>>('/api/splash');
      expect(res.status, res.text).to.equal(200);
      return res.body.data.splash.map((s) => s.name);
    };
    expect(await splash()).to.deep.equal([]);
    expect(ownedListsFor(local.deps).peek(`SplashPage:${user.id}`)).to.not.equal(undefined);

    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'splash:add', '--user', `${user.id}`, '--name', 'CLI'],
      { env: { PATH: process.env.PATH, ...baseEnv() } },
    );
    await eventually(async () => (await splash()).join() === 'CLI', 'the page is listed');
  });

  it("a visitor's contact message counts in the owner's cached overlay list", async () => {
    const { user, apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    const overlay = await addOverlay(local, apiKey, { type: 'contact', message: 'Write us' });
    const link = await createLink(local, apiKey, {
      url: 'https://example.com/',
      type: `overlay-${overlay}`,
    });
    const counts = async () => {
      const res = await here.get<ListBody<'cta', { responses: number }>>('/api/overlay');
      expect(res.status, res.text).to.equal(200);
      return res.body.data.cta.map((o) => o.responses);
    };
    expect(await counts()).to.deep.equal([0]);
    expect(ownedListsFor(local.deps).peek(`Overlay:${user.id}`)).to.not.equal(undefined);
    const other = await createTestUser();
    expect(await names(client(local.url, other.apiKey))).to.deep.equal([]);

    const page = await visit(local, `/${link.alias}`);
    const token = /name="token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const sent = await request(local.url, `/${link.alias}/contact`, {
      method: 'POST',
      rawBody: new URLSearchParams({
        token,
        name: 'A',
        email: 'a@example.com',
        message: 'm',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
    expect(sent.status, sent.text).to.equal(200);
    expect(await counts()).to.deep.equal([1]);
    // The count names its overlay's owner: other users' lists stay in memory.
    expect(ownedListsFor(local.deps).peek(`Pixel:${other.user.id}`)).to.not.equal(undefined);
  });

  it('insertMany and deleteMany by user drop that user’s list', async () => {
    const { user, apiKey } = await createTestUser();
    const here = client(local.url, apiKey);
    expect(await names(here)).to.deep.equal([]);
    await Pixel.insertMany([
      { id: 900_000_000 + user.id, userId: user.id, type: 'gapixel', name: 'bulk', tag: 'G-X1' },
    ]);
    expect(await names(here)).to.deep.equal(['bulk']);
    await Pixel.deleteMany({ userId: user.id });
    expect(await names(here)).to.deep.equal([]);
  });
});
