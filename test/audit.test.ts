import { expect } from 'chai';
import mongoose, { type mongo } from 'mongoose';
import { appendAuditEntry } from '../src/audit/audit-append';
import { AuditEntry } from '../src/audit/audit.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { signedIn, createDashboardUser, TEST_PASSWORD } from './support/dashboard';
import { client, DATE_TIME } from './support/http';
import { createLink, eventually } from './support/links';
import { createTestUser } from './support/users';

interface Entry {
  id: string;
  date: string;
  account: number;
  user: number;
  key: number | null;
  via: 'key' | 'session';
  method: string;
  route: string;
  type: string;
  record: number | null;
  changes: Record<string, unknown>;
  ip: string | null;
}
type EntryList = { data: { result: number; entries: Entry[] } };

describe('audit log', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ AUDIT_RETENTION_DAYS: '30' });
  });
  after(() => app.close());

  async function entriesOf(key: string, query = ''): Promise<Entry[]> {
    const res = await client(app.url, key).get<EntryList>(`/api/audit${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.entries;
  }

  async function awaitEntries(key: string, count: number, query = ''): Promise<Entry[]> {
    let entries: Entry[] = [];
    await eventually(async () => {
      entries = await entriesOf(key, query);
      return entries.length >= count;
    }, `${count} audit entries`);
    return entries;
  }

  it('records a link updated with a named key: who, which key, the changed field, where from', async () => {
    const { user, apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/before' });
    const added = await client(app.url, apiKey).post<{ id: number; key: string }>('/api/keys/add', {
      name: 'editor',
      scopes: ['links:write'],
    });
    const res = await client(app.url, added.body.key).put(`/api/url/${link.id}/update`, {
      url: 'https://example.com/after',
    });
    expect(res.status, res.text).to.equal(200);
    const [update] = await awaitEntries(apiKey, 1, `?type=link&id=${link.id}&limit=1`);
    expect(update).to.deep.include({
      account: user.id,
      user: user.id,
      key: added.body.id,
      via: 'key',
      method: 'PUT',
      route: '/api/url/:id/update',
      type: 'link',
      record: link.id,
      changes: { url: 'https://example.com/after' },
      ip: '127.0.0.1',
    });
    expect(update!.date).to.match(DATE_TIME);
    const all = await awaitEntries(apiKey, 3);
    expect(all.map((e) => `${e.method} ${e.route}`)).to.deep.equal([
      'PUT /api/url/:id/update',
      'POST /api/keys/add',
      'POST /api/url/add',
    ]);
    expect(all[1]!.record).to.equal(added.body.id);
    expect(all[2]!.record).to.equal(link.id);
  });

  it('records a password change without the password, through the dashboard and the API', async () => {
    const owner = await createDashboardUser();
    const secret = 'an entirely new passphrase';
    const session = await signedIn(app.url, owner);
    const form = await session.form('/app/account/password', {
      current: TEST_PASSWORD,
      password: secret,
    });
    expect(form.status).to.equal(303);
    const res = await client(app.url, owner.apiKey).put('/api/account/update', {
      password: `${secret} 2`,
    });
    expect(res.status, res.text).to.equal(200);
    const entries = await awaitEntries(owner.apiKey, 2);
    const api = entries.find((e) => e.route === '/api/account/update');
    expect(api).to.deep.include({ type: 'account', via: 'key', key: 0, record: null });
    expect(api!.changes).to.deep.equal({ password: '[secret]' });
    const dash = entries.find((e) => e.route === '/app/account/password');
    expect(dash).to.deep.include({ via: 'session', key: null, type: 'account' });
    expect(dash!.changes).to.deep.equal({ current: '[secret]', password: '[secret]' });
    const stored = JSON.stringify(await AuditEntry.find({ accountId: owner.user.id }).lean());
    for (const password of [secret, TEST_PASSWORD]) expect(stored).not.to.include(password);
  });

  it('records nothing for a refused write, and only the account’s own entries are listed', async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const refused = await client(app.url, a.apiKey).post('/api/url/add', {});
    expect(refused.status).to.equal(422);
    await createLink(app, b.apiKey, { url: 'https://example.com/b' });
    await awaitEntries(b.apiKey, 1);
    expect(await entriesOf(a.apiKey)).to.deep.equal([]);
  });

  it('filters by date, type and id; refuses a key without account:read', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/f' });
    await client(app.url, apiKey).post('/api/pixel/add', {
      type: 'gtmpixel',
      name: 'p',
      tag: 'GTM-ABC123',
    });
    await awaitEntries(apiKey, 2);
    expect((await entriesOf(apiKey, '?type=link')).map((e) => e.record)).to.deep.equal([link.id]);
    expect(await entriesOf(apiKey, `?type=link&id=${link.id + 1000}`)).to.deep.equal([]);
    expect(await entriesOf(apiKey, '?to=2001-01-01')).to.deep.equal([]);
    expect((await entriesOf(apiKey, '?from=2001-01-01')).length).to.equal(2);
    const bad = await client(app.url, apiKey).get('/api/audit?from=yesterday');
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.include({ error: 1, code: 'bad_query', field: 'from' });
    const reader = await client(app.url, apiKey).post<{ key: string }>('/api/keys/add', {
      name: 'links only',
      scopes: ['links:read'],
    });
    const denied = await client(app.url, reader.body.key).get('/api/audit');
    expect(denied.status).to.equal(403);
    expect(denied.body).to.deep.equal({
      error: 1,
      message: 'Forbidden: this key lacks the scope account:read',
      code: 'insufficient_scope',
    });
  });

  it('stores the entries of writes answered together with one insert, and a bad one loses no other (issue 28)', async () => {
    const accountId = 900_000 + Math.floor(Math.random() * 99_999);
    const entry = (i: number) => ({
      at: new Date(),
      expiresAt: new Date(Date.now() + 86_400_000),
      accountId,
      actorId: accountId,
      keyId: null,
      via: 'key' as const,
      method: 'POST',
      route: '/api/url/add',
      type: 'link',
      recordId: i,
      changes: {},
      ip: null,
    });
    const inserts: number[] = [];
    const listener = (e: mongo.CommandStartedEvent) => {
      if (e.commandName === 'insert' && e.command.insert === 'audit_log') {
        inserts.push((e.command.documents as unknown[]).length);
      }
    };
    const mongoClient = mongoose.connection.getClient();
    mongoClient.on('commandStarted', listener);
    try {
      await Promise.all(Array.from({ length: 10 }, (_, i) => appendAuditEntry(entry(i))));
      expect(inserts).to.deep.equal([10]);
      // An entry the schema refuses fails alone; the others of its group are stored once.
      const bad = { ...entry(10), via: 'carrier pigeon' as 'key' };
      const outcomes = await Promise.allSettled([
        appendAuditEntry(entry(11)),
        appendAuditEntry(bad),
        appendAuditEntry(entry(12)),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    } finally {
      mongoClient.off('commandStarted', listener);
    }
    const stored = await AuditEntry.find({ accountId }).lean();
    expect(stored.map((e) => e.recordId).sort((a, b) => Number(a) - Number(b))).to.deep.equal([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12,
    ]);
  });

  it('lists deeper with after (an entry id), newest first, ties in one millisecond included, off the {accountId, at, _id} index (issue 22, C5)', async () => {
    const { user, apiKey } = await createTestUser();
    const other = await createTestUser();
    // Seven entries, three of them in one millisecond: the page boundary falls inside the tie.
    const base = Date.now() - 60_000;
    const times = [0, 1, 2, 2, 2, 3, 4].map((ms) => new Date(base + ms));
    await AuditEntry.insertMany(
      [...times.map((at) => ({ user, at })), { user: other.user, at: new Date(base) }].map(
        ({ user: owner, at }, i) => ({
          at,
          expiresAt: new Date(at.getTime() + 86_400_000),
          accountId: owner.id,
          actorId: owner.id,
          via: 'key',
          method: 'POST',
          route: '/api/url/add',
          type: 'link',
          recordId: i + 1,
        }),
      ),
    );
    const all = await entriesOf(apiKey, '?limit=100');
    expect(all.map((e) => e.record)).to.have.members([1, 2, 3, 4, 5, 6, 7]);
    const walked: string[] = [];
    let page = await entriesOf(apiKey, '?limit=2');
    while (page.length) {
      walked.push(...page.map((e) => e.id));
      page = await entriesOf(apiKey, `?limit=2&after=${page.at(-1)?.id}`);
    }
    expect(walked).to.deep.equal(all.map((e) => e.id));
    // Within the filters too: after keeps `type`, `from` and `to`.
    const narrowed = await entriesOf(apiKey, `?limit=1&type=link&after=${all[0]?.id}`);
    expect(narrowed.map((e) => e.id)).to.deep.equal([all[1]?.id]);
    // The list's order is the index's order: no in-memory sort of the account's entries.
    expect(AuditEntry.schema.indexes().map(([keys]) => keys)).to.deep.include({
      accountId: 1,
      at: -1,
      _id: -1,
    });
  });

  it('after naming no entry of yours answers 422; a malformed one 400', async () => {
    const { apiKey } = await createTestUser();
    const other = await createTestUser();
    await createLink(app, other.apiKey, { url: 'https://example.com/other' });
    const [theirs] = await awaitEntries(other.apiKey, 1);
    for (const after of ['0123456789abcdef01234567', theirs?.id]) {
      const res = await client(app.url, apiKey).get(`/api/audit?after=${after}`);
      expect(res.status, res.text).to.equal(422);
      expect(res.body).to.deep.include({
        error: 1,
        code: 'validation_failed',
        message: `after: you have no audit entry ${after}; list again without after`,
      });
    }
    const bad = await client(app.url, apiKey).get('/api/audit?after=12');
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body).to.deep.include({ error: 1, code: 'bad_query', field: 'after' });
  });

  it('keeps entries AUDIT_RETENTION_DAYS days, deleted by a TTL index', async () => {
    const { user, apiKey } = await createTestUser();
    await createLink(app, apiKey, { url: 'https://example.com/ttl' });
    await awaitEntries(apiKey, 1);
    const [entry] = await AuditEntry.find({ accountId: user.id }).lean();
    expect(entry!.expiresAt.getTime() - entry!.at.getTime()).to.equal(30 * 86_400_000);
    const indexes = await AuditEntry.collection.indexes();
    expect(indexes.find((i) => i.key.expiresAt === 1)).to.deep.include({ expireAfterSeconds: 0 });
  });
});
