import { expect } from 'chai';
import mongoose from 'mongoose';
import { setAnalyticsReadPreference } from '../src/shared/infra/mongo';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

interface Read {
  collection: string;
  op: string;
  mode: string;
}

/**
 * The read preference mongoose hands the driver for each query and aggregation. The embedded
 * engine is a standalone server, to which the driver never sends `$readPreference`, so the
 * commands themselves cannot show it: this records it where the services set it.
 */
function recordReads(): { reads: Read[]; stop(): void } {
  const reads: Read[] = [];
  const query = mongoose.Query.prototype;
  const aggregate = mongoose.Aggregate.prototype;
  const queryExec = query.exec;
  const aggregateExec = aggregate.exec;
  const modeOf = (pref: unknown) =>
    typeof pref === 'string' ? pref : ((pref as { mode?: string } | undefined)?.mode ?? 'primary');
  query.exec = function (this: mongoose.Query<unknown, unknown>, ...args: unknown[]) {
    reads.push({
      collection: this.model.collection.collectionName,
      op: 'query',
      mode: modeOf(this.getOptions().readPreference),
    });
    return (queryExec as (...a: unknown[]) => Promise<unknown>).apply(this, args);
  } as typeof query.exec;
  aggregate.exec = function (this: mongoose.Aggregate<unknown>, ...args: unknown[]) {
    reads.push({
      collection: this.model().collection.collectionName,
      op: 'aggregate',
      mode: modeOf(this.options.readPreference),
    });
    return (aggregateExec as (...a: unknown[]) => Promise<unknown>).apply(this, args);
  } as typeof aggregate.exec;
  return {
    reads,
    stop: () => {
      query.exec = queryExec;
      aggregate.exec = aggregateExec;
    },
  };
}

const STATISTICS = new Set(['visit_totals', 'visit_counts', 'visit_hours', 'visit_hour_labels']);

describe('MONGODB_READ_PREFERENCE: statistics and exports may read from secondaries (issue 22)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('sends every statistics read and the export reads with it, and everything else to the primary', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const link = await createLink(app, apiKey, { url: 'https://example.com/secondary' });
    await visit(app, `/${link.alias}`);
    await drainVisits(app);
    setAnalyticsReadPreference('secondaryPreferred');
    const recorder = recordReads();
    const byPath = new Map<string, Read[]>();
    try {
      for (const path of [`/api/url/${link.id}/stats`, '/api/stats', '/api/urls/export']) {
        const before = recorder.reads.length;
        const res = await api.get(path);
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
        byPath.set(path, recorder.reads.slice(before));
      }
    } finally {
      recorder.stop();
      setAnalyticsReadPreference('primary');
    }
    const stats = [...byPath.values()].flat().filter((r) => STATISTICS.has(r.collection));
    expect(stats.length, 'statistics reads').to.be.greaterThan(3);
    expect(stats.filter((r) => r.mode !== 'secondaryPreferred')).to.deep.equal([]);
    const exported = (byPath.get('/api/urls/export') ?? []).filter((r) => r.collection === 'links');
    expect(exported.length, 'export reads of links').to.be.greaterThan(0);
    expect(exported.every((r) => r.mode === 'secondaryPreferred')).to.equal(true);
    // The caller's key and the link's ownership: a request must see the write before it.
    const rest = [...byPath.values()]
      .flat()
      .filter((r) => !STATISTICS.has(r.collection) && r.collection !== 'links');
    expect(rest.length, 'other reads').to.be.greaterThan(0);
    expect(rest.filter((r) => r.mode !== 'primary')).to.deep.equal([]);
  });
});
