import { expect } from 'chai';
import mongoose, { type mongo } from 'mongoose';
import { linkRows } from '../src/exports/exports.service';
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
});
