import { expect } from 'chai';
import { loadConfig, ConfigError } from '../src/config';
import { listVisits } from '../src/visits/visits.service';
import { purgeExpiredVisits } from '../src/visits/visit-retention';
import { startRetention } from '../workers/retention';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink } from './support/links';
import { applyPastVisits } from './support/stats';
import { createTestUser } from './support/users';

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

describe('visit retention', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('deletes raw visits older than the retention in small batches, keeping totals and series', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const link = await createLink(app, apiKey, { url: 'https://example.com/' });
    const target = { kind: 'link' as const, id: link.id };
    // Three drained batches (three stored buckets) of old visits, one of recent ones.
    await applyPastVisits(app, target, [{ at: daysAgo(100) }, { at: daysAgo(100) }]);
    await applyPastVisits(app, target, [{ at: daysAgo(95) }]);
    await applyPastVisits(app, target, [{ at: daysAgo(91) }]);
    await applyPastVisits(app, target, [{ at: daysAgo(2) }]);
    const before = await api.get<{ data: { clicks: number } }>(`/api/url/${link.id}`);
    const range = `interval=month&from=${daysAgo(120).slice(0, 10)}&to=${daysAgo(-1).slice(0, 10)}`;
    const seriesBefore = await api.get(`/api/url/${link.id}/stats?${range}`);

    expect(await purgeExpiredVisits(90, { batchSize: 1 })).to.be.at.least(4);

    const left = await listVisits(target);
    expect(left.map((v) => v.at.toISOString().slice(0, 10))).to.deep.equal([
      daysAgo(2).slice(0, 10),
    ]);
    const after = await api.get<{ data: { clicks: number } }>(`/api/url/${link.id}`);
    expect(after.body.data).to.deep.equal(before.body.data);
    expect(after.body.data.clicks).to.equal(5);
    const seriesAfter = await api.get(`/api/url/${link.id}/stats?${range}`);
    expect(seriesAfter.body).to.deep.equal(seriesBefore.body);
    const exported = await api.get(`/api/url/${link.id}/visits`);
    expect(exported.text.trimEnd().split('\n')).to.have.length(2);
  });

  it("runs in the worker's sweep only when VISIT_RETENTION_DAYS is set", async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/' });
    const target = { kind: 'link' as const, id: link.id };
    await applyPastVisits(app, target, [{ at: daysAgo(40) }]);

    const keepForever = startRetention({ visitRetentionDays: undefined, logger: app.deps.logger });
    keepForever.stop();
    await keepForever.run();
    expect(await listVisits(target)).to.have.length(1);

    const thirtyDays = startRetention({ visitRetentionDays: 30, logger: app.deps.logger });
    thirtyDays.stop();
    await thirtyDays.run();
    expect(await listVisits(target)).to.have.length(0);
  });

  it('refuses a retention that is not a whole number of days', () => {
    expect(loadConfig({ VISIT_RETENTION_DAYS: '30' }).visitRetentionDays).to.equal(30);
    expect(loadConfig({}).visitRetentionDays).to.equal(undefined);
    for (const bad of ['0', '-1', '1.5', 'forever'])
      expect(() => loadConfig({ VISIT_RETENTION_DAYS: bad }), bad)
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('VISIT_RETENTION_DAYS');
  });
});
