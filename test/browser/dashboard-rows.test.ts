import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import { createLink, visit } from '../support/links';
import type { TestUser } from '../support/users';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const DESKTOP =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

interface Details {
  details: {
    alias: string;
    geotarget: Array<{ location: string; link: string }>;
    devicetarget: Array<{ device: string; link: string }>;
    languagetarget: Array<{ language: string; link: string }>;
    parameters: Array<{ name: string; value: string }>;
    pixels: number[];
  };
}

/** Issue 27, item 3: targeting, parameters and pixels are rows a person fills, never JSON. */
describe('dashboard row editors in a browser (issue 27)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    app = await startTestApp({ COUNTRY_HEADER: 'cf-ipcountry' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedInPage(
    user: TestUser,
    width = 1280,
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width, height: 900 },
    });
    const page = await context.newPage();
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/links');
    return { context, page };
  }

  /** Adds a row to a row editor and fills its cells, by their labels. */
  async function addRow(editor: Locator, button: string, cells: Record<string, string>) {
    await editor.getByRole('button', { name: button }).click();
    const row = editor.getByRole('group').last();
    for (const [label, value] of Object.entries(cells)) {
      const cell = row.getByLabel(label, { exact: true });
      if ((await cell.evaluate((el) => el.tagName)) === 'SELECT') await cell.selectOption(value);
      else await cell.fill(value);
    }
  }

  it('shows the link’s current alias in its form', async () => {
    const user = await createDashboardUser();
    const alias = `hello-${user.user.id}`;
    const link = await createLink(app, user.apiKey, {
      url: 'https://example.com/a',
      custom: alias,
    });
    const { context, page } = await signedInPage(user);
    await page.goto(`/app/links/${link.id}`);
    await expect(await page.getByLabel('Alias').inputValue()).to.equal(alias);
    // Saving something else leaves the alias as it was.
    await page.getByLabel('Title', { exact: true }).fill('Hello');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const after = await client(app.url, user.apiKey).get<Details>(`/api/url/${link.id}`);
    expect(after.body.details.alias).to.equal(alias);
    await context.close();
  });

  it('edits country, device and language targeting and parameters; the link redirects accordingly', async () => {
    const user = await createDashboardUser();
    const link = await createLink(app, user.apiKey, { url: 'https://example.com/home' });
    const { context, page } = await signedInPage(user);
    await page.goto(`/app/links/${link.id}`);

    const countries = page.getByRole('group', { name: 'Country targeting' });
    await addRow(countries, 'Add country rule', {
      Country: 'Germany',
      'Send to': 'ftp://example.de',
    });
    // Checked as the person types, in the API's own words, next to the cell.
    await countries
      .getByText('geotarget[0].link must be an http or https URL', { exact: true })
      .waitFor();
    expect(
      await countries.getByLabel('Send to', { exact: true }).getAttribute('aria-invalid'),
    ).to.equal('true');
    await countries.getByLabel('Send to', { exact: true }).fill('https://example.de');
    await countries
      .getByText('geotarget[0].link must be an http or https URL')
      .waitFor({ state: 'hidden' });
    await addRow(countries, 'Add country rule', { Country: 'FR', 'Send to': 'https://example.fr' });

    const devices = page.getByRole('group', { name: 'Device targeting' });
    await addRow(devices, 'Add device rule', {
      Device: 'iPhone',
      'Send to': 'https://example.com/ios',
    });
    const languages = page.getByRole('group', { name: 'Language targeting' });
    await addRow(languages, 'Add language rule', {
      Language: 'es',
      'Send to': 'https://example.es',
    });
    await addRow(languages, 'Add language rule', {
      Language: 'xx',
      'Send to': 'https://example.invalid',
    });
    await languages.getByText('language must be an ISO 639 language code').waitFor();
    await languages.getByRole('button', { name: 'Remove language rule 2' }).click();

    const parameters = page.getByRole('group', { name: 'Parameters' });
    await addRow(parameters, 'Add parameter', { Name: 'utm_medium', Value: 'print' });
    await addRow(parameters, 'Add parameter', { Name: 'utm_source', Value: 'qr' });
    await parameters.getByRole('button', { name: 'Move parameter 2 up' }).click();
    await screenshot(page, 'link-rows');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const saved = await client(app.url, user.apiKey).get<Details>(`/api/url/${link.id}`);
    expect(saved.body.details).to.deep.include({
      geotarget: [
        { location: 'Germany', link: 'https://example.de' },
        { location: 'France', link: 'https://example.fr' },
      ],
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }],
      languagetarget: [{ language: 'es', link: 'https://example.es' }],
      parameters: [
        { name: 'utm_source', value: 'qr' },
        { name: 'utm_medium', value: 'print' },
      ],
    });

    const where = async (headers: Record<string, string>) =>
      (
        await visit(app, `/${link.alias}`, { headers: { 'user-agent': DESKTOP, ...headers } })
      ).headers.get('location');
    expect(await where({ 'cf-ipcountry': 'DE' })).to.equal(
      'https://example.de?utm_source=qr&utm_medium=print',
    );
    expect(await where({ 'cf-ipcountry': 'FR' })).to.equal(
      'https://example.fr?utm_source=qr&utm_medium=print',
    );
    expect(await where({ 'user-agent': IPHONE, 'cf-ipcountry': 'US' })).to.equal(
      'https://example.com/ios?utm_source=qr&utm_medium=print',
    );
    expect(await where({ 'accept-language': 'es-ES,es;q=0.9', 'cf-ipcountry': 'US' })).to.equal(
      'https://example.es?utm_source=qr&utm_medium=print',
    );
    expect(await where({ 'cf-ipcountry': 'US' })).to.equal(
      'https://example.com/home?utm_source=qr&utm_medium=print',
    );

    // Reloaded, the rows show what was saved; removing every rule clears the targeting.
    await page.reload();
    const reloaded = page.getByRole('group', { name: 'Country targeting' });
    expect(await reloaded.getByLabel('Country', { exact: true }).first().inputValue()).to.equal(
      'Germany',
    );
    await reloaded.getByRole('button', { name: 'Remove country rule 1' }).click();
    await reloaded.getByRole('button', { name: 'Remove country rule 1' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const cleared = await client(app.url, user.apiKey).get<Details>(`/api/url/${link.id}`);
    expect(cleared.body.details.geotarget).to.deep.equal([]);
    expect(await where({ 'cf-ipcountry': 'DE' })).to.equal(
      'https://example.com/home?utm_source=qr&utm_medium=print',
    );
    await context.close();
  });

  it('can be filled with the keyboard alone: add a rule, type it, save', async () => {
    const user = await createDashboardUser();
    const { context, page } = await signedInPage(user);
    await page.goto('/app/links/new');
    await page.getByLabel('Destination URL').waitFor();
    await page.getByLabel('Destination URL').focus();
    await page.keyboard.type('https://example.com/by-keyboard');
    // Tab forward to the country editor's Add button, as a keyboard user would.
    for (let i = 0; i < 40; i += 1) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate('document.activeElement.textContent');
      if (focused === 'Add country rule') break;
    }
    expect(await page.evaluate('document.activeElement.textContent')).to.equal('Add country rule');
    await page.keyboard.press('Enter');
    // The new rule's URL has the focus (a country rule is laid out as every rule: URL, then key).
    await page.keyboard.type('https://example.de/keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Germany');
    // Enter in a field sends the form, as in any form.
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/app\/links\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const saved = await client(app.url, user.apiKey).get<Details>(`/api/url/${id}`);
    expect(saved.body.details.geotarget).to.deep.equal([
      { location: 'Germany', link: 'https://example.de/keyboard' },
    ]);
    await context.close();
  });
});
