import { expect } from 'chai';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ImportFileChunk } from '../src/imports/import.model';
import { uploadedFile } from '../workers/imports/import.processor';
import { csvSource } from '../workers/imports/sources/csv';
import { startTestApp, type TestApp } from './support/app-harness';
import { uploadImport } from './support/imports';
import { createTestUser } from './support/users';

const ROWS = 100_000;

/** A full collection on demand, so the samples read live memory rather than garbage not yet swept. */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** A YOURLS-style export of `rows` rows with 150-character titles (about 23 MB). */
function bigCsv(rows: number): Buffer {
  const title = 'T'.repeat(150);
  const lines = ['keyword,url,title,timestamp,ip,clicks'];
  for (let i = 0; i < rows; i += 1)
    lines.push(
      `k${i},https://example.com/landing/${i},${title},2021-03-04 05:06:07,127.0.0.1,${i}`,
    );
  return Buffer.from(lines.join('\n'));
}

describe('imports: a 100,000-row CSV in bounded memory', function () {
  this.timeout(180_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
  });
  after(() => app.close());

  it('uploads and parses every row as a stream, the heap never holding the file', async () => {
    const { apiKey } = await createTestUser();
    const csv = bigCsv(ROWS);
    // No worker runs here: the upload stays queued and the adapter reads it directly.
    const started = await uploadImport(app, apiKey, csv);
    expect(started.status, started.text).to.equal(200);
    const importId = started.body.id;
    expect(await ImportFileChunk.countDocuments({ importId })).to.equal(
      Math.ceil(csv.length / 2 ** 20),
    );

    const gc = collector();
    gc();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakRss = base.rss;
    let rows = 0;
    let last = '';
    const source = csvSource({
      baseUrl: null,
      key: undefined,
      http: { policy: { allowPrivate: true } },
      openFile: () => uploadedFile(importId),
      reportTotal: () => undefined,
    });
    for await (const item of source.items()) {
      rows += 1;
      if (item.kind === 'link') last = item.url;
      if (rows % 5000 === 0) {
        gc();
        const now = process.memoryUsage();
        peakHeap = Math.max(peakHeap, now.heapUsed);
        peakRss = Math.max(peakRss, now.rss);
      }
    }
    const mb = (n: number) => (n / 2 ** 20).toFixed(1);
    process.stdout.write(
      `      ${ROWS} rows, ${mb(csv.length)} MB: live heap ${mb(base.heapUsed)} -> peak ${mb(peakHeap)} MB, rss ${mb(base.rss)} -> peak ${mb(peakRss)} MB\n`,
    );
    expect(rows).to.equal(ROWS);
    expect(last).to.equal(`https://example.com/landing/${ROWS - 1}`);
    // Holding the rows (or the file as text) would keep well over the file's 22 MB alive.
    expect(peakHeap - base.heapUsed).to.be.below(8 * 2 ** 20);
    await ImportFileChunk.deleteMany({ importId });
  });
});
