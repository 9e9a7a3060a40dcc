import { expect } from 'chai';
import mongoose from 'mongoose';
import { Link } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { aliasOf, createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

type BulkResult =
  | { error: 0; id: number; shorturl?: string }
  | { error: 1; message: string; code: string; field?: string };
interface BulkBody {
  error: number;
  data: BulkResult[];
}

const PLANS = [{ id: 1, name: 'five', rateLimit: 100_000, maxLinks: 5 }];

const CREATE_OPERATIONS = new Set([
  'users.findOne',
  'webhooks.findOne',
  'alias_reservations.insertMany',
  'alias_reservations.updateMany',
  'counters.findOneAndUpdate',
  'links.insertMany',
  'links.insertOne',
  'links.countDocuments',
  'audit_log.insertOne',
]);

/** Counts the collection operations (each one MongoDB command) the app sends while `work` runs. */
async function countCommands(work: () => Promise<void>): Promise<number> {
  let count = 0;
  mongoose.set('debug', (coll: string, method: string) => {
    // The hook is process-wide: apps other test files left running (a drainer raising links'
    // click totals) must not count, so only the operations a create sends are.
    if (!CREATE_OPERATIONS.has(`${coll}.${method}`)) return;
    count += 1;
    if (process.env.DEBUG_BULK) process.stdout.write(`${coll}.${method}\n`);
  });
  try {
    await work();
  } finally {
    mongoose.set('debug', false);
  }
  return count;
}

describe('bulk links API: POST, PUT and DELETE /api/urls/bulk', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify(PLANS),
      REDIS_PREFIX: `${uniqueName('bk')}:`,
    });
  });
  after(() => app.close());

  it('creates 99 of 100 items when one is invalid, naming the field of the bad one', async () => {
    const { apiKey, user } = await createTestUser();
    const stem = uniqueName('b');
    const urls: Array<Record<string, unknown>> = Array.from({ length: 100 }, (_, i) => ({
      url: `https://example.com/${stem}/${i}`,
      ...(i === 3 ? { custom: `${stem}-three` } : {}),
    }));
    urls[42] = { url: 'ftp://example.com/nope' };
    const res = await client(app.url, apiKey).post<BulkBody>('/api/urls/bulk', { urls });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.error).to.equal(0);
    expect(res.body.data).to.have.length(100);
    expect(res.body.data[42]).to.deep.equal({
      error: 1,
      message: 'url must be an http or https URL',
      code: 'validation_failed',
      field: 'url',
    });
    const made = res.body.data.filter((r) => r.error === 0);
    expect(made).to.have.length(99);
    expect(await Link.countDocuments({ userId: user.id })).to.equal(99);
    const third = res.body.data[3] as { shorturl: string };
    expect(aliasOf(third.shorturl)).to.equal(`${stem}-three`);
    // In request order, and redirecting at once.
    const seventh = res.body.data[7] as { id: number; shorturl: string };
    const link = await Link.findOne({ id: seventh.id }).lean();
    expect(link?.url).to.equal(`https://example.com/${stem}/7`);
    const redirect = await visit(app, `/${aliasOf(seventh.shorturl)}`);
    expect(redirect.status).to.equal(302);
    expect(redirect.headers.get('location')).to.equal(`https://example.com/${stem}/7`);
  });

  it('writes a batch of 100 in a constant number of database commands, not one per link', async () => {
    const { apiKey } = await createTestUser();
    const stem = uniqueName('c');
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${stem}/${n}/${i}` }));
    // Warms the per-process caches (the key, "does anyone subscribe to link.created?").
    await client(app.url, apiKey).post('/api/urls/bulk', { urls: batch(1) });
    const ten = await countCommands(async () => {
      await client(app.url, apiKey).post('/api/urls/bulk', { urls: batch(10) });
    });
    const hundred = await countCommands(async () => {
      await client(app.url, apiKey).post('/api/urls/bulk', { urls: batch(100) });
    });
    expect(ten).to.be.above(0);
    // 100 creates cost what 10 did, give or take the key and subscriber lookups that a cache
    // entry expiring between the two requests adds (users.findOne, webhooks.findOne).
    expect(hundred).to.be.at.most(ten + 2);
    expect(hundred).to.be.at.most(10);
    process.stdout.write(`      MongoDB commands for 10 creates: ${ten}, for 100: ${hundred}\n`);
  });

  it('answers 422 for 101 items and creates nothing', async () => {
    const { apiKey, user } = await createTestUser();
    const urls = Array.from({ length: 101 }, (_, i) => ({ url: `https://example.com/${i}` }));
    const res = await client(app.url, apiKey).post('/api/urls/bulk', { urls });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.equal({
      error: 1,
      message: 'urls must hold at most 100 items',
      code: 'validation_failed',
      field: 'urls',
    });
    expect(await Link.countDocuments({ userId: user.id })).to.equal(0);
  });

  it('answers 422 when urls is missing or empty', async () => {
    const { apiKey } = await createTestUser();
    const missing = await client(app.url, apiKey).post('/api/urls/bulk', {});
    expect(missing.status).to.equal(422);
    expect(missing.body).to.deep.equal({
      error: 1,
      message: 'urls is required',
      code: 'validation_failed',
      field: 'urls',
    });
    const empty = await client(app.url, apiKey).post('/api/urls/bulk', { urls: [] });
    expect(empty.status).to.equal(422);
    expect(empty.body).to.include({ field: 'urls', code: 'validation_failed' });
  });

  it('fails a taken alias and a duplicate within the batch on their own', async () => {
    const { apiKey } = await createTestUser();
    const other = await createTestUser();
    const taken = uniqueName('t');
    await createLink(app, other.apiKey, { url: 'https://example.com/theirs', custom: taken });
    const twice = uniqueName('d');
    const res = await client(app.url, apiKey).post<BulkBody>('/api/urls/bulk', {
      urls: [
        { url: 'https://example.com/a', custom: taken },
        { url: 'https://example.com/b', custom: twice },
        { url: 'https://example.com/c', custom: twice },
        { url: 'https://example.com/d', custom: 'api' },
        'not an object',
      ],
    });
    expect(res.status).to.equal(200);
    const conflictOf = (alias: string) => ({
      error: 1,
      message: `alias ${alias} is already taken`,
      code: 'conflict',
      field: 'custom',
    });
    expect(res.body.data[0]).to.deep.equal(conflictOf(taken));
    expect(res.body.data[1]).to.include({ error: 0 });
    expect(res.body.data[2]).to.deep.equal(conflictOf(twice));
    expect(res.body.data[3]).to.deep.equal({
      error: 1,
      message: 'alias api is reserved',
      code: 'validation_failed',
      field: 'custom',
    });
    expect(res.body.data[4]).to.deep.equal({
      error: 1,
      message: 'item must be a JSON object',
      code: 'validation_failed',
    });
    const theirs = await visit(app, `/${taken}`);
    expect(theirs.headers.get('location')).to.equal('https://example.com/theirs');
  });

  it('fails the items past the plan limit, creating up to it', async () => {
    const { apiKey, user } = await createTestUser({ plan: 'five' });
    const urls = Array.from({ length: 7 }, (_, i) => ({ url: `https://example.com/p/${i}` }));
    const res = await client(app.url, apiKey).post<BulkBody>('/api/urls/bulk', { urls });
    expect(res.status).to.equal(200);
    expect(res.body.data.slice(0, 5).every((r) => r.error === 0)).to.equal(true);
    expect(res.body.data[5]).to.deep.equal({
      error: 1,
      message: 'Plan limit reached: maxLinks (5) on the five plan; delete a link or change plan',
      code: 'forbidden',
    });
    expect(await Link.countDocuments({ userId: user.id })).to.equal(5);
  });

  it('updates item by item; another user id fails alone (BOLA)', async () => {
    const { apiKey } = await createTestUser();
    const other = await createTestUser();
    const mine = await createLink(app, apiKey, { url: 'https://example.com/old' });
    const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/theirs' });
    const res = await client(app.url, apiKey).put<BulkBody>('/api/urls/bulk', {
      urls: [
        { id: mine.id, url: 'https://example.com/new' },
        { id: theirs.id, url: 'https://example.com/stolen' },
        { id: mine.id },
        { url: 'https://example.com/no-id' },
      ],
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data[0]).to.deep.equal({ error: 0, id: mine.id, shorturl: mine.shorturl });
    expect(res.body.data[1]).to.deep.equal({
      error: 1,
      message: 'Link not found',
      code: 'not_found',
      field: 'id',
    });
    expect(res.body.data[2]).to.include({ error: 1, code: 'validation_failed' });
    expect(res.body.data[3]).to.deep.equal({
      error: 1,
      message: 'id is required',
      code: 'validation_failed',
      field: 'id',
    });
    expect((await visit(app, `/${mine.alias}`)).headers.get('location')).to.equal(
      'https://example.com/new',
    );
    expect((await visit(app, `/${theirs.alias}`)).headers.get('location')).to.equal(
      'https://example.com/theirs',
    );
  });

  it('deletes item by item; another user id and an unknown id fail alone (BOLA)', async () => {
    const { apiKey } = await createTestUser();
    const other = await createTestUser();
    const mine = await createLink(app, apiKey, { url: 'https://example.com/mine' });
    const theirs = await createLink(app, other.apiKey, { url: 'https://example.com/theirs' });
    const res = await client(app.url, apiKey).delete<BulkBody>('/api/urls/bulk', {
      body: { ids: [mine.id, theirs.id, 2 ** 31 - 1, 'x'] },
    });
    expect(res.status, res.text).to.equal(200);
    const notFound = { error: 1, message: 'Link not found', code: 'not_found', field: 'id' };
    expect(res.body.data).to.deep.equal([
      { error: 0, id: mine.id },
      notFound,
      notFound,
      { error: 1, message: 'value must be a number', code: 'validation_failed' },
    ]);
    expect(await Link.countDocuments({ id: mine.id })).to.equal(0);
    expect(await Link.countDocuments({ id: theirs.id })).to.equal(1);
    expect((await visit(app, `/${mine.alias}`)).status).to.equal(404);
  });
});
