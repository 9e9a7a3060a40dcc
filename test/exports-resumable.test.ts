import { expect } from 'chai';
import mongoose, { type mongo } from 'mongoose';
import { linkRows, visitRows } from '../src/exports/exports.service';
import { VisitBucket } from '../src/visits/visit.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { createLink } from './support/links';
import { createTestUser } from './support/users';

describe('exports read in resumable batches, never one long cursor (issue 22, B4)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('each batch of links is a query of its own on the {userId, id} index: no getMore', async () => {
    const { apiKey, user } = await createTestUser();
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await createLink(app, apiKey, { url: `https://example.com/e${i}` })).id);
    }
    const client = mongoose.connection.getClient();
    const commands: mongo.CommandStartedEvent[] = [];
    const listen = (e: mongo.CommandStartedEvent) => commands.push(e);
    client.on('commandStarted', listen);
    const rows = [];
    try {
      for await (const row of linkRows(user.id, app.config.publicUrl, 2)) rows.push(row);
    } finally {
      client.off('commandStarted', listen);
    }
    expect(rows.map((r) => r.id)).to.deep.equal(ids);
    const linkFinds = commands.filter(
      (c) => c.commandName === 'find' && c.command.find === 'links',
    );
    expect(linkFinds.map((c) => [c.command.filter.id, c.command.limit])).to.deep.equal([
      [{ $gt: 0 }, 2],
      [{ $gt: ids[1] }, 2],
      [{ $gt: ids[3] }, 2],
    ]);
    expect(commands.filter((c) => c.commandName === 'getMore')).to.deep.equal([]);
  });

  it('each batch of raw visits continues after the last (from, _id), ties in one instant included: no getMore', async () => {
    // A target id of its own, far above the counter: nothing else stores visits under it.
    const targetId = 2_000_000_000 + Math.floor(Math.random() * 100_000_000);
    const base = Date.UTC(2026, 0, 1);
    // Five buckets, two pairs sharing their `from`: a batch boundary falls inside a tie.
    const froms = [0, 0, 60_000, 60_000, 120_000];
    await VisitBucket.insertMany(
      froms.map((offset, i) => ({
        _id: `resumable-${targetId}-${i}`,
        kind: 'link',
        targetId,
        from: new Date(base + offset),
        to: new Date(base + offset + 1000),
        entryIds: [`${targetId}-${i}`],
        visits: [
          {
            entryId: `${targetId}-${i}`,
            at: new Date(base + offset + i),
            visitor: 'v',
            country: 'FR',
            referrer: `r${i}`,
            browser: 'b',
            os: 'o',
            bot: false,
          },
        ],
      })),
    );
    const client = mongoose.connection.getClient();
    const commands: mongo.CommandStartedEvent[] = [];
    const listen = (e: mongo.CommandStartedEvent) => commands.push(e);
    client.on('commandStarted', listen);
    const rows = [];
    try {
      for await (const row of visitRows({ kind: 'link', id: targetId }, {}, 2)) rows.push(row);
    } finally {
      client.off('commandStarted', listen);
      await VisitBucket.deleteMany({ targetId });
    }
    expect(rows.map((r) => r.referrer)).to.deep.equal(['r0', 'r1', 'r2', 'r3', 'r4']);
    const finds = commands.filter(
      (c) => c.commandName === 'find' && c.command.find === 'visit_buckets',
    );
    expect(finds.map((c) => c.command.limit)).to.deep.equal([2, 2, 2]);
    expect(commands.filter((c) => c.commandName === 'getMore')).to.deep.equal([]);
  });
});
