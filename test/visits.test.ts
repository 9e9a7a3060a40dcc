import { expect } from 'chai';
import express, { type Request } from 'express';
import { Redis } from 'ioredis';
import { listen, type RunningServer } from '../src/server';
import { createLogger } from '../src/shared/infra/logger';
import { standaloneRedis, waitForRedis } from '../src/shared/infra/redis-connections';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { listVisits } from '../src/visits/visits.service';
import { partitionEntryId, VisitDrainer, visitBacklog } from '../src/visits/visit-drainer';
import { CLICKS_PER_ENTRY, createVisits, type Visits } from '../src/visits/visit-recorder';
import { applyVisits } from '../src/visits/visit-apply';
import {
  decodeEntry,
  DEFAULT_VISIT_PARTITIONS,
  visitPartitionOf,
  visitStreamKey,
} from '../src/visits/visit-stream';
import type { CapturedVisit, VisitKind } from '../src/visits/visits.types';
import { testRedisPrefix } from './support/environment';
import { request } from './support/http';
import { uniqueName } from './support/users';

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const firefoxLinux = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';

let nextTarget = 1_000_000 + Math.floor(Math.random() * 1_000_000);

/** A visitor-facing route that records through the real module, as short links and QR codes do. */
describe('visit recording and statistics', () => {
  const logger = createLogger('silent');
  let redis: Redis;
  let drainerRedis: Redis;
  let keys: RedisKeys;
  let visits: Visits;
  let server: RunningServer;
  let url: string;

  before(async () => {
    keys = new RedisKeys(`${testRedisPrefix}${uniqueName('visits')}:`);
    redis = standaloneRedis('redis://127.0.0.1:6379', 'request');
    drainerRedis = standaloneRedis('redis://127.0.0.1:6379', 'blocking');
    await waitForRedis(redis);
    visits = createVisits({
      redis,
      keys,
      logger,
      salt: 'salt-for-tests',
      countryHeader: 'cf-ipcountry',
    });
    const app = express();
    app.get('/hit/:kind/:id', (req, res) => {
      visits.record({ kind: req.params.kind as VisitKind, id: Number(req.params.id) }, req);
      res.redirect(302, 'https://example.com/');
    });
    server = await listen(app, 0, '127.0.0.1');
    url = `http://127.0.0.1:${server.port}`;
  });
  after(async () => {
    await server.close();
    redis.disconnect();
    drainerRedis.disconnect();
  });

  /** A click, sent to Redis before it resolves (a busy process gathers clicks for a few ms). */
  const hit = async (id: number, headers: Record<string, string>, kind = 'qr') => {
    const res = await request(url, `/hit/${kind}/${id}`, { headers });
    await visits.flush();
    return res;
  };
  const drain = () => new VisitDrainer({ redis: drainerRedis, keys, logger }).drainAvailable();

  it('turns visits into the exact statistics object, leaving bots out', async () => {
    const id = nextTarget++;
    await hit(id, {
      'user-agent': chrome,
      'cf-ipcountry': 'DE',
      referer: 'https://www.facebook.com/post/1',
    });
    await hit(id, { 'user-agent': chrome, 'cf-ipcountry': 'DE', referer: 'https://t.co/abc' });
    await hit(id, { 'user-agent': firefoxLinux, 'cf-ipcountry': 'FR' });
    await hit(id, {
      'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)',
      'cf-ipcountry': 'US',
    });
    expect(await drain()).to.equal(4);

    expect(await visits.getStatistics({ kind: 'qr', id })).to.deep.equal({
      clicks: 3,
      // the same address and User-Agent twice is one visitor
      uniqueClicks: 2,
      topCountries: { Germany: '2', France: '1' },
      topReferrers: { Direct: '1', 'facebook.com': '1', 't.co': '1' },
      topBrowsers: { Chrome: '2', Firefox: '1' },
      topOs: { Windows: '2', Linux: '1' },
      socialCount: { facebook: 1, twitter: 1, linkedin: 0 },
    });
    const raw = await listVisits({ kind: 'qr', id });
    expect(raw).to.have.length(4);
    expect(raw.filter((v) => v.bot)).to.have.length(1);
    expect(JSON.stringify(raw)).not.to.match(/127\.0\.0\.1|::1/);
  });

  it('keeps at most ten labels per dimension, largest first', async () => {
    const id = nextTarget++;
    const codes = ['DE', 'FR', 'IT', 'ES', 'PT', 'NL', 'BE', 'AT', 'CH', 'PL', 'SE', 'NO'];
    for (const [i, code] of codes.entries()) {
      for (let n = 0; n <= (i === 11 ? 3 : 0); n++)
        await hit(id, { 'user-agent': chrome, 'cf-ipcountry': code });
    }
    await drain();
    const stats = await visits.getStatistics({ kind: 'qr', id });
    expect(stats.clicks).to.equal(15);
    expect(Object.keys(stats.topCountries)).to.have.length(10);
    expect(Object.entries(stats.topCountries)[0]).to.deep.equal(['Norway', '4']);
  });

  it('separates links from QR codes with the same id, and counts per target for lists', async () => {
    const id = nextTarget++;
    await hit(id, { 'user-agent': chrome }, 'link');
    await hit(id, { 'user-agent': chrome }, 'link');
    await hit(id, { 'user-agent': chrome }, 'qr');
    await drain();
    const counts = await visits.getClickCounts('link', [id, id + 999_999]);
    expect([...counts]).to.deep.equal([
      [id, 2],
      [id + 999_999, 0],
    ]);
    expect((await visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(1);
  });

  it('stores and counts a redelivered entry once', async () => {
    const id = nextTarget++;
    const entry = {
      entryId: `${Date.now()}-${id}`,
      visit: {
        kind: 'qr' as const,
        targetId: id,
        at: Date.now(),
        visitor: 'x',
        country: 'Germany',
        userAgent: chrome,
        referrer: '',
      },
    };
    const later = { ...entry, entryId: `${Date.now() + 1}-${id}` };
    expect(await applyVisits([entry], redis, keys)).to.equal(1);
    // the same entry again, as after a crash between storing it and acknowledging it, with a new one
    expect(await applyVisits([entry, later], redis, keys, { mayBeRedelivered: true })).to.equal(1);
    expect((await listVisits({ kind: 'qr', id })).map((v) => v.entryId)).to.deep.equal([
      entry.entryId,
      later.entryId,
    ]);
    expect((await visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(2);
  });

  it('takes over the entries a drainer read but never acknowledged, counting each once', async () => {
    // Both in one partition, which the dead consumer reads; both ids are reserved from the
    // counter so that no other test counts clicks on the second one.
    const stored = nextTarget;
    const unstored = stored + DEFAULT_VISIT_PARTITIONS;
    nextTarget = unstored + 1;
    const partition = visitPartitionOf('qr', stored, DEFAULT_VISIT_PARTITIONS);
    await hit(stored, { 'user-agent': chrome });
    await hit(unstored, { 'user-agent': chrome });
    await new VisitDrainer({ redis: drainerRedis, keys, logger }).ensureGroup();
    // a consumer reads both, stores the first, and dies before storing the second or acknowledging
    const [[, entries]] = (await drainerRedis.xreadgroup(
      'GROUP',
      'visit-drainers',
      'dead-one',
      'COUNT',
      10,
      'STREAMS',
      visitStreamKey(keys, partition),
      '>',
    )) as Array<[string, Array<[string, string[]]>]>;
    const [firstId, firstFields] = entries[0] as [string, string[]];
    // Stored as a drainer stores it: under the click's own id.
    const [first] = decodeEntry(firstFields)!.visits as [CapturedVisit];
    const entryId = first.clickId ?? partitionEntryId(partition, firstId);
    await applyVisits([{ entryId, visit: first }], redis, keys);
    await new Promise((r) => setTimeout(r, 30));

    const rescuer = new VisitDrainer({ redis: drainerRedis, keys, logger, claimIdleMs: 10 });
    expect(await rescuer.drainAvailable()).to.equal(1);
    expect((await visits.getStatistics({ kind: 'qr', id: stored })).clicks).to.equal(1);
    expect((await visits.getStatistics({ kind: 'qr', id: unstored })).clicks).to.equal(1);
    expect(await visitBacklog(redis, keys)).to.equal(0);
  });

  it('sends the clicks of one turn as entries of at most CLICKS_PER_ENTRY, each counted once', async () => {
    const id = nextTarget++;
    const stream = visitStreamKey(keys, visitPartitionOf('qr', id, DEFAULT_VISIT_PARTITIONS));
    const before = await redis.xlen(stream);
    const req = { ip: '203.0.113.9', headers: { 'user-agent': chrome } } as unknown as Request;
    const clicks = CLICKS_PER_ENTRY * 2 + 7;
    for (let i = 0; i < clicks; i += 1) visits.record({ kind: 'qr', id }, req);
    await new Promise((r) => setTimeout(r, 50));
    expect((await redis.xlen(stream)) - before).to.equal(3);
    await drain();
    expect((await visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(clicks);
  });

  it('sends the clicks of a busy process once per window, and what it gathered at close', async () => {
    const id = nextTarget++;
    const stream = visitStreamKey(keys, visitPartitionOf('qr', id, DEFAULT_VISIT_PARTITIONS));
    const before = await redis.xlen(stream);
    const gathering = createVisits({
      redis,
      keys,
      logger,
      salt: 'salt-for-tests',
      countryHeader: undefined,
      windowMs: 60_000,
    });
    const req = { ip: '203.0.113.9', headers: { 'user-agent': chrome } } as unknown as Request;
    // Nothing sent lately: the first click leaves at the end of its turn.
    gathering.record({ kind: 'qr', id }, req);
    await new Promise((r) => setTimeout(r, 50));
    expect((await redis.xlen(stream)) - before).to.equal(1);
    // Within the window: gathered, not sent.
    for (let i = 0; i < 5; i += 1) gathering.record({ kind: 'qr', id }, req);
    await new Promise((r) => setTimeout(r, 50));
    expect((await redis.xlen(stream)) - before).to.equal(1);
    // Shutting down sends them (one entry) and leaves no timer behind.
    await gathering.close();
    expect((await redis.xlen(stream)) - before).to.equal(2);
    await drain();
    expect((await visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(6);
  });

  it('drains continuously in the background and leaves no backlog', async () => {
    const id = nextTarget++;
    const drainer = new VisitDrainer({ redis: drainerRedis, keys, logger, blockMs: 50 });
    drainer.start();
    try {
      await Promise.all(Array.from({ length: 40 }, () => hit(id, { 'user-agent': chrome })));
      const deadline = Date.now() + 5000;
      while (
        (await visits.getStatistics({ kind: 'qr', id })).clicks < 40 &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await drainer.stop();
    }
    expect((await visits.getStatistics({ kind: 'qr', id })).clicks).to.equal(40);
    expect(await visitBacklog(redis, keys)).to.equal(0);
  });

  it('writes straight to MongoDB when Redis refuses the entry, so nothing is lost', async () => {
    const id = nextTarget++;
    const deadRedis = standaloneRedis('redis://127.0.0.1:1', 'request', {
      retryStrategy: () => null,
    });
    deadRedis.on('error', () => undefined);
    const offline = createVisits({
      redis: deadRedis,
      keys,
      logger,
      salt: 's',
      countryHeader: undefined,
    });
    const app = express();
    app.get('/hit', (req, res) => {
      offline.record({ kind: 'link', id }, req);
      res.status(204).end();
    });
    const s = await listen(app, 0, '127.0.0.1');
    try {
      const res = await request(`http://127.0.0.1:${s.port}`, '/hit', {
        headers: { 'user-agent': chrome },
      });
      expect(res.status).to.equal(204);
      const deadline = Date.now() + 5000;
      // The apply step stores the visit before it counts it: wait for the count, not the visit.
      while (
        (await visits.getStatistics({ kind: 'link', id })).clicks === 0 &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await visits.getStatistics({ kind: 'link', id })).clicks).to.equal(1);
      expect(await listVisits({ kind: 'link', id })).to.have.length(1);
    } finally {
      await s.close();
      deadRedis.disconnect();
    }
  });

  it('forgets everything of a deleted target', async () => {
    const id = nextTarget++;
    await hit(id, { 'user-agent': chrome, 'cf-ipcountry': 'DE' });
    await drain();
    await visits.deleteVisits({ kind: 'qr', id });
    expect(await visits.getStatistics({ kind: 'qr', id })).to.deep.equal({
      clicks: 0,
      uniqueClicks: 0,
      topCountries: {},
      topReferrers: {},
      topBrowsers: {},
      topOs: {},
      socialCount: { facebook: 0, twitter: 0, linkedin: 0 },
    });
    expect(await listVisits({ kind: 'qr', id })).to.have.length(0);
  });
});
