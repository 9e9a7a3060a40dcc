import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { Link } from '../../src/links/link.model';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import { createLink, visit } from '../support/links';
import type { TestUser } from '../support/users';

interface Details {
  details: {
    rules: Array<{ url: string; when: Record<string, unknown> }>;
    variants: Array<{ url: string; weight: number; clicks: number }>;
  };
}

/** Issue 24, item 6: redirect rules are edited a rule and a condition at a time, never as JSON. */
describe('dashboard rules editor in a browser (issue 24)', function () {
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

  const rule = (editor: Locator, n: number) => editor.getByRole('group', { name: `Rule ${n}` });

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
