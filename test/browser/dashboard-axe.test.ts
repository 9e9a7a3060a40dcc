import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { ImportJob } from '../../src/imports/import.model';
import { nextId } from '../../src/shared/ids/counter.model';
import { startTestApp, type TestApp } from '../support/app-harness';
import { seriousViolations } from '../support/axe';
import { launchChromium } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import { createLink } from '../support/links';
import { createTestUser } from '../support/users';

/** Issue 27: every dashboard page passes axe-core at a desktop and a phone width. */
describe('dashboard accessibility: axe-core on every page at 1280 px and 375 px (issue 27)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let browser: Browser;
  let pages: Array<[string, string]>;
  let email: string;
  let importId: number;

  before(async () => {
    app = await startTestApp();
    browser = await launchChromium();
    const user = await createDashboardUser();
    email = user.user.email;
    const api = client(app.url, user.apiKey);
    const link = await createLink(app, user.apiKey, {
      url: 'https://example.com/a',
      geotarget: [{ location: 'DE', link: 'https://example.de' }],
      parameters: [{ name: 'utm_source', value: 'qr' }],
      // The rules editor, the variants, the limit and the health badge are on the page too.
      rules: [
        {
          url: 'https://example.com/news',
          when: { query: { utm_source: 'news' }, device: ['iphone'] },
        },
      ],
      variants: [
        { url: 'https://example.com/a1', weight: 50 },
        { url: 'https://example.com/a2', weight: 50 },
      ],
      maxclicks: 100,
      monitor: true,
    });
    const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'hello' });
    await api.post('/api/campaign/add', {
      name: 'Spring',
      slug: `spring-${user.user.id}`,
      public: true,
    });
    await api.post('/api/channel/add', { name: 'Menus' });
    await api.post('/api/pixel/add', { type: 'gtmpixel', name: 'Shop', tag: 'GTM-ABC1234' });
    // A member of another account, and with a member of their own: the account switcher and both
    // of the Team page's lists are on the pages.
    const other = await createTestUser();
    await client(app.url, other.apiKey).post('/api/team/add', {
      username: user.user.username,
      role: 'editor',
    });
    const colleague = await createTestUser();
    await api.post('/api/team/add', { username: colleague.user.username, role: 'viewer' });
    // A finished import with an error: the Import page's list of past imports has a row.
    importId = await nextId('imports');
    await ImportJob.create({
      id: importId,
      userId: user.user.id,
      source: 'csv',
      status: 'done',
      total: 2,
      imported: 1,
      skipped: 1,
      errors: [{ item: 'spring', message: 'alias spring is already taken: skipped' }],
      started: new Date(),
      finished: new Date(),
    });
    pages = [
      ['/app/links', '#view table'],
      ['/app/links/new', '#view form'],
      [`/app/links/${link.id}`, '#view .rule'],
      ['/app/qr', '#view'],
      ['/app/qr/new', '.preview'],
      [`/app/qr/${qr.body.id}`, '#view form'],
      ['/app/account', 'h1'],
      ['/app/r/campaigns', '#view table'],
      ['/app/r/channels', '#view table'],
      ['/app/r/domains', '#view p'],
      ['/app/r/pixels', '#view table'],
      ['/app/r/splash', '#view p'],
      ['/app/r/overlays', '#view p'],
      ['/app/keys', '#view table'],
      ['/app/team', '#view table'],
      ['/app/audit', '#view table'],
      ['/app/import', '.import-history table'],
      ['/app/nothing-here', 'h1'],
    ];
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('has a check that catches what it is for (an unlabelled input, an image without text)', async () => {
    const page = await browser.newPage();
    await page.setContent('<main><img src="x.png"><input type="text"></main>');
    const found = await seriousViolations(page);
    expect(found.map((v) => v.split(':')[0])).to.include.members([
      'critical image-alt',
      'critical label',
    ]);
    await page.close();
  });

  for (const width of [1280, 375]) {
    it(`finds no serious or critical violation at ${width} px, signed out and in, dialogs open`, async () => {
      const context = await browser.newContext({
        baseURL: app.url,
        viewport: { width, height: 900 },
      });
      const page = await context.newPage();
      const found: string[] = [];
      const check = async (what: string) => {
        for (const v of await seriousViolations(page)) found.push(`${what}: ${v}`);
      };
      await page.goto('/');
      await check('/ (first-run page)');
      await page.goto('/app/signin');
      await check('/app/signin');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/app/links');
      for (const [path, ready] of pages) {
        await page.goto(path);
        await page.locator(ready).first().waitFor();
        await check(path);
      }
      await page.goto('/app/r/campaigns');
      await page.getByRole('button', { name: 'New campaign' }).click();
      await page.getByRole('dialog').waitFor();
      await check('/app/r/campaigns, new campaign dialog');
      await page.goto('/app/keys');
      await page.getByRole('button', { name: 'New key' }).click();
      await page.getByRole('dialog').waitFor();
      await check('/app/keys, new key dialog');
      await page.goto('/app/import');
      await page.getByRole('button', { name: new RegExp(`report of import ${importId}$`) }).click();
      await page.getByRole('dialog').getByRole('table').waitFor();
      await check('/app/import, report dialog');
      await context.close();
      expect(found, found.join('\n')).to.deep.equal([]);
    });
  }
});
