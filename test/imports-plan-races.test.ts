import { expect } from 'chai';
import { Link } from '../src/links/link.model';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, type TestResponse } from './support/http';
import {
  finishedImport,
  startTestImportWorker,
  uploadImport,
  type ImportReport,
} from './support/imports';
import { createTestUser, uniqueName } from './support/users';

const MAX_LINKS = 40;
const MAX_QR = 15;

/** A linkqr export of `links` links and `codes` text QR codes, as another linkqr writes it. */
function exportOf(stem: string, links: number, codes: number): string {
  const header = { format: 'linkqr-export', version: 1, source: 'https://old.example' };
  const lines: unknown[] = [header];
  for (let i = 1; i <= links; i += 1)
    lines.push({ type: 'link', data: { id: i, alias: `${stem}-${i}`, url: `https://e.com/${i}` } });
  for (let i = 1; i <= codes; i += 1)
    lines.push({ type: 'qr', data: { id: i, type: 'text', data: `imported ${i}` } });
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

/**
 * An import counts against the plan and stores under the same per-user slot as the API's create
 * routes (plan-lock.ts): API creates sent while the import runs can never take the user past
 * the plan together with it.
 */
describe('plan limits: an import racing API creates', function () {
  this.timeout(90_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify([
        { id: 1, name: 'racy', rateLimit: 100_000, maxLinks: MAX_LINKS, maxQrCodes: MAX_QR },
      ]),
    });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  /**
   * Starts an import of `text` and sends `wave` (API creates, answering how many it made) again
   * and again while it runs, and once after: answers the report and the creates made.
   */
  async function race(apiKey: string, text: string, wave: (n: number) => Promise<number>) {
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    expect(started.status, started.text).to.equal(200);
    let finished = false;
    const report = finishedImport(app, apiKey, started.body.id, 60_000).finally(
      () => (finished = true),
    );
    let made = 0;
    for (let n = 0; n === 0 || !finished; n += 1) made += await wave(n);
    return { report: await report, made };
  }

  /** Every API answer is a create or the plan's 403 naming the limit. */
  function countMade(
    answers: Array<TestResponse<{ error: number; message?: string }>>,
    limit: string,
  ) {
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status, a.text).to.equal(403);
      expect(a.body.error).to.equal(1);
      expect(a.body.message).to.match(
        new RegExp(`^Plan limit reached: ${limit} \\(\\d+\\) on the racy plan`),
      );
    }
    return answers.filter((a) => a.status === 200).length;
  }

  function expectStopped(report: ImportReport, limit: string) {
    expect(report.status).to.equal('failed');
    expect(report.errors.map((e) => e.message)).to.satisfy((messages: string[]) =>
      messages.some(
        (m) => m.startsWith(`Plan limit reached: ${limit}`) && m.endsWith(': import stopped'),
      ),
    );
  }

  it('never lets an import of links and concurrent url/add and urls/bulk pass maxLinks', async () => {
    const { user, apiKey } = await createTestUser({ plan: 'racy' });
    const api = client(app.url, apiKey);
    const stem = uniqueName('race');
    const { report, made } = await race(apiKey, exportOf(stem, 3 * MAX_LINKS, 0), async (n) => {
      const [bulk, ...single] = await Promise.all([
        api.post<{ data: Array<{ error: number; message?: string }> }>('/api/urls/bulk', {
          urls: [{ url: `https://e.com/b${n}a` }, { url: `https://e.com/b${n}b` }],
        }),
        api.post<{ error: number }>('/api/url/add', { url: `https://e.com/a${n}` }),
        api.post<{ error: number }>('/api/url/add', { url: `https://e.com/a${n}b` }),
      ]);
      expect(bulk.status, bulk.text).to.equal(200);
      for (const r of bulk.body.data.filter((r) => r.error !== 0))
        expect(r.message).to.match(/^Plan limit reached: maxLinks/);
      return bulk.body.data.filter((r) => r.error === 0).length + countMade(single, 'maxLinks');
    });
    expect(await Link.countDocuments({ userId: user.id })).to.equal(MAX_LINKS);
    // Whatever the interleaving, every link is the import's or an API create's, none beyond.
    expect(report.imported + made).to.equal(MAX_LINKS);
    expectStopped(report, 'maxLinks');
  });

  it('never lets an import of QR codes and concurrent qr/add pass maxQrCodes', async () => {
    const { user, apiKey } = await createTestUser({ plan: 'racy' });
    const api = client(app.url, apiKey);
    const { report, made } = await race(apiKey, exportOf('', 0, 3 * MAX_QR), async (n) =>
      countMade(
        await Promise.all(
          [1, 2, 3].map((k) =>
            api.post<{ error: number }>('/api/qr/add', { type: 'text', data: `api ${n} ${k}` }),
          ),
        ),
        'maxQrCodes',
      ),
    );
    expect(await QrCode.countDocuments({ userId: user.id })).to.equal(MAX_QR);
    expect(report.imported + made).to.equal(MAX_QR);
    expectStopped(report, 'maxQrCodes');
  });
});
