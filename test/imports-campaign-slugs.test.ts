import { expect } from 'chai';
import { Campaign } from '../src/campaigns/campaign.model';
import { AliasReservation } from '../src/links/alias.model';
import { Link } from '../src/links/link.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { finishedImport, startTestImportWorker, uploadImport } from './support/imports';
import { createLink, eventually, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

describe('imports: a campaign brought in answers on its rotator at once', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    // Cached entries never expire on this clock: only an invalidation can replace one.
    app = await startTestApp({}, { cacheClock: { now: () => 1_000_000 } });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  it('drops the cached "no such slug" when the import creates the campaign', async () => {
    const owner = await createTestUser();
    const slug = uniqueName('rot');
    const campaign = await createCampaign(app, owner.apiKey, { name: 'Spring', slug });
    const link = await createLink(app, owner.apiKey, { url: 'https://example.com/spring' });
    await assignToCampaign(app, owner.apiKey, campaign.id, link.id);
    const exported = await fetch(`${app.url}/api/export`, {
      headers: { authorization: `Bearer ${owner.apiKey}` },
    });
    expect(exported.status).to.equal(200);
    const file = await exported.text();
    // The first account goes away (as on a fresh database), and the rotator's miss is cached.
    await Campaign.deleteMany({ userId: owner.user.id });
    await Link.deleteMany({ userId: owner.user.id });
    await AliasReservation.deleteMany({ alias: new URL(link.shorturl).pathname.slice(1) });
    expect((await visit(app, `/r/${slug}`)).status).to.equal(404);
    expect((await visit(app, `/r/${slug}`)).status).to.equal(404);

    const newcomer = await createTestUser();
    const started = await uploadImport(app, newcomer.apiKey, file, { source: 'linkqr' });
    expect(started.status, started.text).to.equal(200);
    const report = await finishedImport(app, newcomer.apiKey, started.body.id);
    expect(report, JSON.stringify(report.errors)).to.include({ status: 'done', failed: 0 });

    await eventually(
      async () => (await visit(app, `/r/${slug}`)).status === 302,
      'the imported rotator answers',
    );
    const answer = await visit(app, `/r/${slug}`);
    expect(answer.headers.get('location')).to.equal('https://example.com/spring');
  });
});
