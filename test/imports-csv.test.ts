import { expect } from 'chai';
import { Link } from '../src/links/link.model';
import { ImportJob } from '../src/imports/import.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { finishedImport, startTestImportWorker, uploadImport } from './support/imports';
import { createLink, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

describe('imports: jobs and the csv source', () => {
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  it('imports a YOURLS export: counts, fields, redirects at once, a taken alias skipped and reported', async () => {
    const { apiKey, user } = await createTestUser();
    const other = await createTestUser();
    const stem = uniqueName('y');
    await createLink(app, other.apiKey, {
      url: 'https://example.com/theirs',
      custom: `${stem}-taken`,
    });
    const csv = [
      'keyword,url,title,timestamp,ip,clicks',
      `${stem}-a,https://example.com/a,"Spring, sale",2021-03-04 05:06:07,127.0.0.1,12`,
      `${stem}-b,https://example.com/b,,2021-03-05 00:00:00,127.0.0.1,0`,
      `${stem}-taken,https://example.com/mine,,,,`,
      `${stem}-bad,javascript:alert(1),,,,`,
    ].join('\n');
    const started = await uploadImport(app, apiKey, csv);
    expect(started.status, started.text).to.equal(200);
    expect(started.body).to.have.keys('error', 'id');
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({
      id: started.body.id,
      source: 'csv',
      status: 'done',
      total: 4,
      imported: 2,
      skipped: 1,
      failed: 1,
    });
    expect(report.errors).to.deep.equal([
      { item: `alias:${stem}-bad`, message: 'url javascript:alert(1) is not an http or https URL' },
      { item: `alias:${stem}-taken`, message: `alias ${stem}-taken is already taken: skipped` },
    ]);
    expect(report.started).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const a = await Link.findOne({ userId: user.id, alias: `${stem}-a` }).lean();
    expect(a).to.include({ url: 'https://example.com/a', title: 'Spring, sale' });
    expect(a?.createdAt.toISOString().slice(0, 10)).to.equal('2021-03-04');
    const redirect = await visit(app, `/${stem}-a`);
    expect(redirect.status).to.equal(302);
    expect(redirect.headers.get('location')).to.equal('https://example.com/a');
    const theirs = await visit(app, `/${stem}-taken`);
    expect(theirs.headers.get('location')).to.equal('https://example.com/theirs');

    const again = await uploadImport(app, apiKey, csv);
    const rerun = await finishedImport(app, apiKey, again.body.id);
    expect(rerun).to.deep.include({ imported: 0, skipped: 3, failed: 1 });
    expect(await Link.countDocuments({ userId: user.id })).to.equal(2);
  });

  it('imports a taken alias under a fresh one with onConflict rename, naming it', async () => {
    const { apiKey, user } = await createTestUser();
    const other = await createTestUser();
    const taken = uniqueName('r');
    await createLink(app, other.apiKey, { url: 'https://example.com/theirs', custom: taken });
    const csv = `alias,url,description\n${taken},https://example.com/mine,about it\n`;
    const started = await uploadImport(app, apiKey, csv, { onConflict: 'rename' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ imported: 1, skipped: 0, failed: 0 });
    const mine = await Link.findOne({ userId: user.id }).lean();
    expect(mine?.alias).to.not.equal(taken);
    expect(mine?.description).to.equal('about it');
    expect(report.errors).to.deep.equal([
      { item: `alias:${taken}`, message: `alias ${taken} was taken: imported as ${mine?.alias}` },
    ]);
  });

  it('recognises Bitly, Rebrandly and Shlink column names', async () => {
    const { apiKey, user } = await createTestUser();
    const s = uniqueName('c');
    const files = [
      `title,long_url,link,created_at\nB,https://example.com/bitly,https://bit.ly/${s}-b,2020-01-01T00:00:00+0000\n`,
      `Slashtag,Destination,Title\n${s}-r,https://example.com/rebrandly,R\n`,
      `shortCode,longUrl,title,dateCreated\n${s}-s,https://example.com/shlink,S,2020-01-02T00:00:00+00:00\n`,
    ];
    for (const file of files) {
      const started = await uploadImport(app, apiKey, file);
      expect((await finishedImport(app, apiKey, started.body.id)).imported).to.equal(1);
    }
    const links = await Link.find({ userId: user.id }).sort({ id: 1 }).lean();
    expect(links.map((l) => [l.alias, l.url, l.title])).to.deep.equal([
      [`${s}-b`, 'https://example.com/bitly', 'B'],
      [`${s}-r`, 'https://example.com/rebrandly', 'R'],
      [`${s}-s`, 'https://example.com/shlink', 'S'],
    ]);
  });

  it("answers another user's import with 404, and lists only the caller's", async () => {
    const { apiKey } = await createTestUser();
    const other = await createTestUser();
    const started = await uploadImport(app, apiKey, 'url\nhttps://example.com/x\n');
    await finishedImport(app, apiKey, started.body.id);
    const theirs = await client(app.url, other.apiKey).get(`/api/import/${started.body.id}`);
    expect(theirs.status).to.equal(404);
    expect(theirs.body).to.deep.equal({
      error: 1,
      message: 'Import not found',
      code: 'not_found',
    });
    const list = await client(app.url, other.apiKey).get<{ data: { imports: unknown[] } }>(
      '/api/imports',
    );
    expect(list.status).to.equal(200);
    expect(list.body.data.imports).to.deep.equal([]);
    const mine = await client(app.url, apiKey).get<{ data: { imports: Array<{ id: number }> } }>(
      '/api/imports',
    );
    expect(mine.body.data.imports.map((i) => i.id)).to.deep.equal([started.body.id]);
  });

  it('refuses a bad request with a 422 naming the field', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const cases: Array<[unknown, string, string]> = [
      [{}, 'source is required', 'source'],
      [
        { source: 'yourls' },
        'source must be one of [gempixel, linkqr, shlink, kutt, bitly, csv]',
        'source',
      ],
      [{ source: 'shlink' }, 'url is required for source shlink', 'url'],
      [{ source: 'csv' }, 'url (or a file upload) is required for source csv', 'url'],
      [{ source: 'kutt', url: 'ftp://k.example' }, 'url must be an http or https URL', 'url'],
    ];
    for (const [body, message, field] of cases) {
      const res = await api.post('/api/import', body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body).to.deep.equal({ error: 1, message, code: 'validation_failed', field });
    }
    const noFile = await uploadImport(app, apiKey, '', { source: 'shlink' });
    expect(noFile.status).to.equal(422);
    expect(await ImportJob.countDocuments({ userId: (await createTestUser()).user.id })).to.equal(
      0,
    );
  });
});

describe('imports: the private-address policy', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('refuses a source on a loopback or private address unless IMPORT_ALLOW_PRIVATE', async () => {
    const { apiKey } = await createTestUser();
    for (const url of ['http://127.0.0.1:9', 'http://10.0.0.1', 'http://[::1]:8080']) {
      const res = await client(app.url, apiKey).post('/api/import', {
        source: 'shlink',
        url,
        key: 'k',
      });
      expect(res.status, url).to.equal(422);
      expect(res.body).to.deep.equal({
        error: 1,
        message: 'url points to a private or local network address',
        code: 'validation_failed',
        field: 'url',
      });
    }
  });
});
