import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import type { TestUser } from '../support/users';

describe('dashboard API keys page in a browser (issue 23)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let browser: Browser;
  before(async () => {
    app = await startTestApp();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedInPage(user: TestUser): Promise<Page> {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/links');
    return page;
  }

  /** The key the open dialog shows this once. */
  async function shownKey(page: Page): Promise<string> {
    const key = await page.getByRole('dialog').getByTestId('new-key').textContent();
    expect(key).to.match(/^lqr_/);
    return key!;
  }

  it('creates a scoped key shown once that works over HTTP within its scope, rotates it with grace, revokes it', async () => {
    const user = await createDashboardUser();
    const page = await signedInPage(user);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL('**/app/keys');
    await page.getByRole('cell', { name: 'default', exact: true }).waitFor();

    await page.getByRole('button', { name: 'New key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name (required)').fill('reporting script');
    await dialog.getByLabel('links', { exact: true }).selectOption('links:read');
    await dialog.getByLabel('stats', { exact: true }).selectOption('stats:read');
    await dialog.getByLabel('Your current password').fill(TEST_PASSWORD);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const key = await shownKey(page);
    await screenshot(page, 'keys-new');
    await dialog.getByRole('button', { name: 'Done' }).click();

    const api = client(app.url, key);
    expect((await api.get('/api/urls')).status).to.equal(200);
    const refused = await api.post('/api/url/add', { url: 'https://example.com/x' });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.include({ error: 1, code: 'insufficient_scope' });

    const row = page.getByRole('row').filter({ hasText: 'reporting script' });
    await row.getByText('links:read, stats:read').waitFor();
    expect(await row.getByText(key.slice(0, 8)).count()).to.equal(1);
    expect(await page.getByText(key).count(), 'the key is never listed').to.equal(0);

    await page.getByRole('button', { name: 'Rotate reporting script' }).click();
    await dialog.getByLabel('The old key keeps working for').selectOption({ label: 'one hour' });
    await dialog.getByLabel('Your current password').fill(TEST_PASSWORD);
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = await shownKey(page);
    expect(rotated).not.to.equal(key);
    await dialog.getByText(/The old key works until \d{4}-\d\d-\d\d/).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await row.getByText(/Old key .* works until/).waitFor();
    expect((await client(app.url, rotated).get('/api/urls')).status).to.equal(200);
    expect((await api.get('/api/urls')).status, 'the old key in its grace').to.equal(200);

    await page.getByRole('button', { name: 'Revoke reporting script' }).click();
    await page.getByText('The key "reporting script" has been revoked.').waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'reporting script' }).count()).to.equal(0);
    expect((await client(app.url, rotated).get('/api/urls')).status).to.equal(401);
    expect((await api.get('/api/urls')).status).to.equal(401);
  });

  it('shows the API’s error beside the field: no scope, a wrong password', async () => {
    const user = await createDashboardUser();
    const page = await signedInPage(user);
    await page.goto('/app/keys');
    await page.getByRole('button', { name: 'New key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name (required)').fill('nothing at all');
    await dialog.getByLabel('Your current password').fill('not my password');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('scopes must contain at least 1 items').waitFor();
    await dialog.getByLabel('Everything (*), like your default key').check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('current: the current password is wrong').waitFor();
    expect(await dialog.getByLabel('Your current password').getAttribute('aria-invalid')).to.equal(
      'true',
    );
  });
});
