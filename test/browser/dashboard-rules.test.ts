import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { Link } from '../../src/links/link.model';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import { createLink, visit } from '../support/links';
import type { TestUser } from '../support/users';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

interface Details {
  details: {
    rules: Array<{ url: string; when: Record<string, unknown> }>;
    geotarget: Array<{ location: string; link: string }>;
    devicetarget: Array<{ device: string; link: string }>;
    languagetarget: Array<{ language: string; link: string }>;
    variants: Array<{ url: string; weight: number; clicks: number }>;
  };
}

/** Issue 24, item 6: redirect rules are edited a rule and a condition at a time, never as JSON. */
describe('dashboard rules editor in a browser (issue 24)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    // The visitor's country comes from this header, as behind Cloudflare.
    app = await startTestApp({ COUNTRY_HEADER: 'cf-ipcountry' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedInPage(user: TestUser): Promise<{ context: BrowserContext; page: Page }> {
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
    return { context, page };
  }

  const rule = (editor: Locator, n: number) =>
    editor.getByRole('group', { name: `Rule ${n}`, exact: true });

  it('adds, fills, orders and saves rules, with the API’s messages beside the control they name', async () => {
    const user = await createDashboardUser();
    const link = await createLink(app, user.apiKey, {
      url: 'https://example.com/home',
      variants: [
        { url: 'https://example.com/a', weight: 70 },
        { url: 'https://example.com/b', weight: 30 },
      ],
      maxclicks: 500,
      monitor: true,
      fallback: 'https://example.com/down',
    });
    const { context, page } = await signedInPage(user);
    await page.goto(`/app/links/${link.id}`);

    // The facts: health badge, limit, variants with their clicks.
    expect(await page.getByTestId('health').textContent()).to.equal('Not checked yet');
    await page.getByText('0 of 500 clicks used').waitFor();
    const variants = page.getByRole('list', { name: 'A/B variants' }).getByRole('listitem');
    expect(await variants.allTextContents()).to.deep.equal([
      'https://example.com/a · 70 % · 0 clicks',
      'https://example.com/b · 30 % · 0 clicks',
    ]);

    const editor = page.getByRole('group', { name: 'Redirect rules' });
    await editor.getByRole('button', { name: 'Add rule' }).click();
    const first = rule(editor, 1);
    // The new rule's URL has the focus.
    await page.keyboard.type('https://example.com/newsletter');
    await first.getByLabel('Query parameters').fill('utm_source=newsletter');

    await editor.getByRole('button', { name: 'Add rule' }).click();
    const second = rule(editor, 2);
    await second.getByLabel('Send to').fill('https://example.com/office');
    await second.getByLabel('IP addresses').fill('203.0.113.0/33');
    // Checked as the person types, in the API's words, beside the control.
    const ipError = second.getByText('rules[1].when.ip[0] must be an IP address or a CIDR range');
    await ipError.waitFor();
    expect(await second.getByLabel('IP addresses').getAttribute('aria-invalid')).to.equal('true');
    await second.getByLabel('IP addresses').fill('203.0.113.0/24, 2001:db8::/32');
    await ipError.waitFor({ state: 'hidden' });
    await second.getByLabel('desktop').check();
    await second.getByLabel('Until').fill('2099-01-01T00:00:00');

    await editor.getByRole('button', { name: 'Move rule 2 up' }).click();
    await screenshot(page, 'link-rules');

    // A refusal the save brings back (the weights no longer add up): shown beside its field.
    const weights = page.getByRole('group', { name: 'A/B variants' }).getByLabel('Weight (%)');
    await weights.first().fill('60');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('variants weights must add up to 100').waitFor();
    await weights.first().fill('70');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();

    const saved = await client(app.url, user.apiKey).get<Details>(`/api/url/${link.id}`);
    expect(saved.body.details.rules).to.deep.equal([
      {
        url: 'https://example.com/office',
        when: {
          device: ['desktop'],
          ip: ['203.0.113.0/24', '2001:db8::/32'],
          before: new Date('2099-01-01T00:00:00').toISOString(),
        },
      },
      { url: 'https://example.com/newsletter', when: { query: { utm_source: 'newsletter' } } },
    ]);
    const where = async (path: string) =>
      (await visit(app, path, { headers: { 'user-agent': 'curl/8' } })).headers.get('location');
    expect(await where(`/${link.alias}?utm_source=newsletter`)).to.equal(
      'https://example.com/newsletter',
    );

    // Reloaded, the rules show what was saved; an error the save returns lands on its control.
    await page.reload();
    const reloaded = page.getByRole('group', { name: 'Redirect rules' });
    expect(await rule(reloaded, 1).getByLabel('Send to').inputValue()).to.equal(
      'https://example.com/office',
    );
    expect(await rule(reloaded, 2).getByLabel('Query parameters').inputValue()).to.equal(
      'utm_source=newsletter',
    );
    await rule(reloaded, 2).getByLabel('Countries').fill('XX');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const countryError = rule(reloaded, 2).getByText(
      'rules[1].when.country[0] must be an ISO 3166 country code',
    );
    await countryError.waitFor();
    expect(await page.evaluate('document.activeElement.getAttribute("aria-invalid")')).to.equal(
      'true',
    );

    // Removing every rule clears them.
    await rule(reloaded, 1).getByRole('button', { name: 'Remove rule 1' }).click();
    await rule(reloaded, 1).getByRole('button', { name: 'Remove rule 1' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const cleared = await client(app.url, user.apiKey).get<Details>(`/api/url/${link.id}`);
    expect(cleared.body.details.rules).to.deep.equal([]);
    await context.close();
  });
  it('edits GemPixel’s country map and a rule in the same editor, saved back to geotarget and rules', async () => {
    const user = await createDashboardUser();
    const link = await createLink(app, user.apiKey, {
      url: 'https://example.com/home',
      geotarget: [{ location: 'DE', link: 'https://example.de' }],
      devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }],
      rules: [{ url: 'https://example.com/news', when: { query: { utm_source: 'news' } } }],
    });
    const { context, page } = await signedInPage(user);
    await page.goto(`/app/links/${link.id}`);

    // The maps are sections of the rules editor, named after the field API clients read.
    const editor = page.getByRole('group', { name: 'Redirect rules' });
    const countries = editor.getByRole('group', {
      name: 'Country targeting (GemPixel’s geotarget)',
    });
    const devices = editor.getByRole('group', {
      name: 'Device targeting (GemPixel’s devicetarget)',
    });
    const germany = countries.getByRole('group', { name: 'Country rule 1' });
    expect(await germany.getByLabel('Country', { exact: true }).inputValue()).to.equal('Germany');
    expect(await germany.getByLabel('Send to').inputValue()).to.equal('https://example.de');
    expect(await devices.getByLabel('Device', { exact: true }).inputValue()).to.equal('iPhone');

    // The country rule is edited like a rule: its URL checked as the person types, the message
    // beside the URL's control.
    await germany.getByLabel('Send to').fill('ftp://example.de');
    const linkError = germany.getByText('geotarget[0].link must be an http or https URL');
    await linkError.waitFor();
    expect(await germany.getByLabel('Send to').getAttribute('aria-invalid')).to.equal('true');
    await germany.getByLabel('Send to').fill('https://example.de/sale');
    await linkError.waitFor({ state: 'hidden' });
    // A second country rule, added with the keyboard: the new rule's URL has the focus.
    await countries.getByRole('button', { name: 'Add country rule' }).click();
    await page.keyboard.type('https://example.fr');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Atlantis');
    // Removing the device rule empties GemPixel's device map.
    await devices.getByRole('button', { name: 'Remove device rule 1' }).click();

    // The link's own rule, in the same editor: now only for German readers of the newsletter.
    const news = rule(editor, 1);
    await news.getByLabel('Send to').fill('https://example.com/news-de');
    await news.getByLabel('Countries').fill('DE');
    await screenshot(page, 'link-rules-targeting');

    // An error the save brings back lands beside the control it names, focused.
    await page.getByRole('button', { name: 'Save changes' }).click();
    const france = countries.getByRole('group', { name: 'Country rule 2' });
    await france
      .getByText('location must be a country name or ISO 3166 code', { exact: true })
      .waitFor();
    expect(await page.evaluate('document.activeElement.value')).to.equal('Atlantis');
    await france.getByLabel('Country', { exact: true }).fill('FR');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();

    // API clients see the country rules where GemPixel puts them, and the rule in `rules`.
    const saved = await client(app.url, user.apiKey).get<Details>(`/api/url/${link.id}`);
    expect(saved.body.details).to.deep.include({
      geotarget: [
        { location: 'Germany', link: 'https://example.de/sale' },
        { location: 'France', link: 'https://example.fr' },
      ],
      devicetarget: [],
      languagetarget: [],
      rules: [
        {
          url: 'https://example.com/news-de',
          when: { query: { utm_source: 'news' }, country: ['DE'] },
        },
      ],
    });

    // Visitors: the rule first, then the country map; the device map is gone.
    const where = async (path: string, headers: Record<string, string>) =>
      (
        await visit(app, `/${link.alias}${path}`, {
          headers: { 'user-agent': 'curl/8', ...headers },
        })
      ).headers.get('location');
    expect(await where('', { 'cf-ipcountry': 'DE' })).to.equal('https://example.de/sale');
    expect(await where('?utm_source=news', { 'cf-ipcountry': 'DE' })).to.equal(
      'https://example.com/news-de',
    );
    expect(await where('', { 'cf-ipcountry': 'FR' })).to.equal('https://example.fr');
    expect(await where('', { 'cf-ipcountry': 'US', 'user-agent': IPHONE })).to.equal(
      'https://example.com/home',
    );

    // Reloaded, the editor shows what was saved.
    await page.reload();
    const again = page
      .getByRole('group', { name: 'Redirect rules' })
      .getByRole('group', { name: 'Country targeting' });
    const reloaded = again.getByRole('group', { name: 'Country rule 2' });
    expect(await reloaded.getByLabel('Country', { exact: true }).inputValue()).to.equal('France');
    expect(await page.getByRole('group', { name: 'Device rule 1' }).count()).to.equal(0);
    await context.close();
  });
  it('shows a broken destination as a badge in the list and on the link’s page', async () => {
    const user = await createDashboardUser();
    const link = await createLink(app, user.apiKey, {
      url: 'https://example.com/gone',
      title: 'Printed flyer',
      monitor: true,
      fallback: 'https://example.com/down',
    });
    // As the worker leaves it after two failed checks (test/link-monitoring.test.ts).
    const at = new Date('2026-11-20T08:00:00Z');
    await Link.updateOne(
      { id: link.id },
      {
        $set: {
          health: { status: 'broken', checked: at, since: at, lastError: 'HTTP 404', failures: 2 },
        },
      },
    );
    const { context, page } = await signedInPage(user);
    await page.goto('/app/links');
    const row = page.getByRole('row').filter({ hasText: 'Printed flyer' });
    expect(await row.locator('.badge').textContent()).to.equal('Broken');
    await page.goto(`/app/links/${link.id}`);
    expect(await page.getByTestId('health').textContent()).to.equal('Broken');
    await page
      .getByText(
        'since 2026-11-20 08:00:00 UTC · last checked 2026-11-20 08:00:00 UTC · last error: HTTP 404',
      )
      .waitFor();
    await page.getByText('Visitors go to https://example.com/down').waitFor();
    await context.close();
  });
});
