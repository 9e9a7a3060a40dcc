import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { Link } from '../../src/links/link.model';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { finishedImport, startTestImportWorker, uploadImport } from '../support/imports';
import { createLink } from '../support/links';
import { createTestUser, uniqueName, type TestUser } from '../support/users';

describe('dashboard Import page in a browser', function () {
  this.timeout(90_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  let browser: Browser;
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await worker?.close();
    await app?.close();
  });

  async function signedInPage(user: TestUser): Promise<Page> {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/links');
    return page;
  }

  it('uploads a CSV, shows the progress bar and the report with the skipped alias', async () => {
    const user = await createDashboardUser();
    const other = await createTestUser();
    const stem = uniqueName('bi');
    await createLink(app, other.apiKey, {
      url: 'https://example.com/theirs',
      custom: `${stem}-taken`,
    });
    const page = await signedInPage(user);
    await page.getByRole('link', { name: 'Import' }).click();
    await page.waitForURL('**/app/import');
    expect(await page.getByLabel('Bring links from').inputValue()).to.equal('gempixel');
    await page.getByLabel('Bring links from').selectOption('csv');
    expect(
      await page.getByLabel('API key (used for this import only, never stored)').isVisible(),
    ).to.equal(false);
    const csv = [
      'keyword,url,title',
      `${stem}-a,https://example.com/a,A`,
      `${stem}-b,https://example.com/b,B`,
      `${stem}-taken,https://example.com/c,C`,
    ].join('\n');
    await page
      .getByLabel('File')
      .setInputFiles({ name: 'yourls.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Start import' }).click();
    const status = page.locator('.import-report [role=status]');
    await status.filter({ hasText: /^done:/ }).waitFor({ timeout: 30_000 });
    expect(await status.textContent()).to.equal('done: 2 imported, 1 skipped, 0 failed of 3');
    const bar = page.locator('.import-report progress');
    expect(await bar.getAttribute('value')).to.equal(await bar.getAttribute('max'));
    expect(
      await page
        .getByRole('cell', { name: `alias ${stem}-taken is already taken: skipped` })
        .count(),
    ).to.equal(1);
    expect(await Link.countDocuments({ userId: user.user.id })).to.equal(2);
    await screenshot(page, 'import');
  });

  it("lists past imports with their status and counts, and opens each one's errors", async () => {
    const user = await createDashboardUser();
    const other = await createTestUser();
    const stem = uniqueName('hi');
    const csv = [
      'keyword,url',
      `${stem}-a,https://example.com/a`,
      `${stem}-b,ftp://example.com/b`,
    ].join('\n');
    const done = await uploadImport(app, user.apiKey, csv);
    await finishedImport(app, user.apiKey, done.body.id);
    const refused = await uploadImport(app, user.apiKey, '{"hello":1}\n', { source: 'linkqr' });
    await finishedImport(app, user.apiKey, refused.body.id);
    const theirs = await uploadImport(app, other.apiKey, csv);
    await finishedImport(app, other.apiKey, theirs.body.id);

    const page = await signedInPage(user);
    await page.goto('/app/import');
    const history = page.getByRole('region', { name: 'Past imports' });
    const rows = history.locator('tbody tr');
    await rows.first().waitFor();
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 7).map((td) => td.textContent)),
    );
    // Newest first; another user's import is not among them.
    expect(cells).to.deep.equal([
      [String(refused.body.id), 'linkqr export file', 'failed', '0', '0', '0', '0'],
      [
        String(done.body.id),
        'CSV file (YOURLS, Bitly, Rebrandly, Shlink exports)',
        'done',
        '1',
        '0',
        '1',
        '2',
      ],
    ]);

    await history
      .getByRole('button', { name: new RegExp(`report of import ${done.body.id}$`) })
      .click();
    const dialog = page.getByRole('dialog', { name: new RegExp(`^Import ${done.body.id} `) });
    await dialog
      .getByRole('status')
      .filter({ hasText: /^done:/ })
      .waitFor();
    expect(await dialog.getByRole('status').textContent()).to.equal(
      'done: 1 imported, 0 skipped, 1 failed of 2',
    );
    expect(
      await dialog
        .getByRole('cell', { name: 'url ftp://example.com/b is not an http or https URL' })
        .count(),
    ).to.equal(1);
    await screenshot(page, 'import-history');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await history
      .getByRole('button', { name: new RegExp(`report of import ${refused.body.id}$`) })
      .click();
    const failed = page.getByRole('dialog', { name: new RegExp(`^Import ${refused.body.id} `) });
    await failed.getByRole('cell', { name: 'not a linkqr export' }).waitFor();
  });

  it('shows the API error beside the form for a source without its address', async () => {
    const user = await createDashboardUser();
    const page = await signedInPage(user);
    await page.goto('/app/import');
    await page.getByLabel('Bring links from').selectOption('shlink');
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByText('url is required for source shlink').waitFor();
  });
});
