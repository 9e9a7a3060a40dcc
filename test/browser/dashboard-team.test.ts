import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { Link } from '../../src/links/link.model';
import { startTestApp, type TestApp } from '../support/app-harness';
import {
  horizontalOverflow,
  launchChromium,
  lowContrastText,
  screenshot,
} from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import { createLink } from '../support/links';
import { createTestUser, type TestUser } from '../support/users';

describe('dashboard Team and Audit log pages and the account switcher in a browser (issue 23)', function () {
  this.timeout(120_000);
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

  async function signedInPage(user: TestUser, width = 1280): Promise<Page> {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width, height: 900 },
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

  it('invites a member who switches into the account, writes there as an editor and shows in its audit log; removal ends it', async () => {
    const owner = await createDashboardUser();
    const member = await createDashboardUser();
    const ownerLink = await createLink(app, owner.apiKey, { url: 'https://example.com/owners' });

    // The owner adds the member as an editor.
    const ownerPage = await signedInPage(owner);
    await ownerPage.getByRole('link', { name: 'Team' }).click();
    await ownerPage.waitForURL('**/app/team');
    await ownerPage.getByText('Nobody else works in your account yet.').waitFor();
    await ownerPage
      .getByLabel('Username of an existing user (required)')
      .fill(member.user.username);
    await ownerPage.getByLabel('Role', { exact: true }).selectOption('editor');
    await ownerPage.getByRole('button', { name: 'Add member' }).click();
    await ownerPage.getByText(`${member.user.username} has been added as editor.`).waitFor();
    await ownerPage.getByRole('cell', { name: member.user.username, exact: true }).waitFor();
    expect(await ownerPage.getByRole('form', { name: 'Account switcher' }).count()).to.equal(0);

    // The member sees the account on their Team page and switches into it.
    const memberPage = await signedInPage(member);
    await memberPage.goto('/app/team');
    await memberPage
      .getByRole('button', { name: `Act in this account: ${owner.user.username}` })
      .click();
    await memberPage.waitForURL('**/app/links');
    const switcher = memberPage.getByRole('form', { name: 'Account switcher' });
    expect(await switcher.getByLabel('Account').inputValue()).to.equal(String(owner.user.id));
    await memberPage.getByRole('link', { name: new RegExp(`/${ownerLink.alias}$`) }).waitFor();
    await screenshot(memberPage, 'team-acting');

    // A link the member creates there is the owner's, and its page opens in that account.
    await memberPage.getByRole('link', { name: 'New link' }).click();
    await memberPage.getByLabel('Destination URL').fill('https://example.com/by-the-member');
    await memberPage.getByRole('button', { name: 'Create link' }).click();
    await memberPage.waitForURL(/\/app\/links\/\d+$/);
    const created = await Link.findOne({ url: 'https://example.com/by-the-member' }).lean();
    expect(created?.userId).to.equal(owner.user.id);

    // An editor may not read the account's audit log: the page says what the API said.
    await memberPage.getByRole('link', { name: 'Audit log' }).click();
    await memberPage.waitForURL('**/app/audit');
    await memberPage
      .getByRole('alert')
      .filter({ hasText: 'Forbidden: the editor role cannot use account:read' })
      .waitFor();

    // The owner's audit log names the member, the route and the field set.
    await ownerPage.getByRole('link', { name: 'Audit log' }).click();
    const entry = ownerPage.getByRole('row').filter({ hasText: 'POST /app/api/url/add' }).filter({
      hasText: member.user.username,
    });
    await entry.waitFor();
    expect(await entry.getByText('https://example.com/by-the-member').count()).to.equal(1);
    expect(await entry.getByRole('cell', { name: 'dashboard' }).count()).to.equal(1);
    await ownerPage.getByLabel('Record type').selectOption('team');
    await ownerPage.getByRole('button', { name: 'Show' }).click();
    // The filtered list replaces the whole one: no link entry is left.
    await ownerPage
      .getByRole('row')
      .filter({ hasText: '/api/url/add' })
      .first()
      .waitFor({ state: 'detached' });
    await ownerPage.getByRole('row').filter({ hasText: 'POST /app/api/team/add' }).waitFor();
    expect(new URL(ownerPage.url()).search).to.equal('?type=team');
    await screenshot(ownerPage, 'audit');

    // The owner removes the member: their next page is their own account, the switch refused.
    await ownerPage.goto('/app/team');
    await ownerPage.getByRole('button', { name: `Remove ${member.user.username}` }).click();
    await ownerPage.getByText(`${member.user.username} has been removed.`).waitFor();
    await memberPage.goto('/app/links');
    expect(await memberPage.getByRole('form', { name: 'Account switcher' }).count()).to.equal(0);
    expect(await memberPage.locator('meta[name="linkqr-account"]').count()).to.equal(0);
  });

  it('switches back to the own account from the switcher', async () => {
    const owner = await createDashboardUser();
    const member = await createDashboardUser();
    const page = await signedInPage(owner);
    await page.goto('/app/team');
    await page.getByLabel('Username of an existing user (required)').fill(member.user.username);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('cell', { name: member.user.username, exact: true }).waitFor();
    const mine = await createLink(app, member.apiKey, { url: 'https://example.com/mine' });

    const memberPage = await signedInPage(member);
    const switcher = memberPage.getByRole('form', { name: 'Account switcher' });
    await switcher.getByLabel('Account').selectOption(String(owner.user.id));
    await switcher.getByRole('button', { name: 'Switch' }).click();
    await memberPage.waitForURL('**/app/links');
    await memberPage.getByText(/No links yet|no links/i).waitFor();
    await switcher.getByLabel('Account').selectOption('');
    await switcher.getByRole('button', { name: 'Switch' }).click();
    await memberPage.getByRole('link', { name: new RegExp(`/${mine.alias}$`) }).waitFor();

    // The Team page, always about the member's own account, says where the dashboard acts.
    await switcher.getByLabel('Account').selectOption(String(owner.user.id));
    await switcher.getByRole('button', { name: 'Switch' }).click();
    await memberPage.getByText(/No links yet/).waitFor();
    // Keys are the member's own wherever the dashboard acts (a viewer may not touch the owner's).
    await memberPage.getByRole('link', { name: 'API keys' }).click();
    await memberPage.getByRole('cell', { name: 'default', exact: true }).waitFor();
    expect(await memberPage.getByRole('alert').count()).to.equal(0);
    await memberPage.getByRole('link', { name: 'Team' }).click();
    await memberPage
      .getByText(`The dashboard acts in the account of ${owner.user.username} (as viewer)`, {
        exact: false,
      })
      .waitFor();
    await memberPage.getByText('The dashboard acts here now').waitFor();
    await memberPage.getByRole('button', { name: 'Back to your own account' }).click();
    await memberPage.getByRole('link', { name: new RegExp(`/${mine.alias}$`) }).waitFor();
    expect(await memberPage.locator('meta[name="linkqr-account"]').count()).to.equal(0);
  });

  it('shows the API’s error beside the Team form: an unknown user', async () => {
    const owner = await createDashboardUser();
    const page = await signedInPage(owner);
    await page.goto('/app/team');
    await page.getByLabel('Username of an existing user (required)').fill('nobody-is-called-this');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText('No user is called nobody-is-called-this').waitFor();
    expect(
      await page.getByLabel('Username of an existing user (required)').getAttribute('aria-invalid'),
    ).to.equal('true');
  });

  it('has no horizontal scrolling at 375 px and AA text contrast, the switcher showing', async () => {
    const user = await createDashboardUser();
    const other = await createTestUser();
    await client(app.url, other.apiKey).post('/api/team/add', {
      username: user.user.username,
      role: 'admin',
    });
    await client(app.url, user.apiKey).post('/api/keys/add', {
      name: 'a key with a rather long name for a narrow screen',
      scopes: ['links:read', 'links:write', 'stats:read', 'qr:write'],
    });
    const page = await signedInPage(user, 375);
    for (const [target, ready] of [
      ['/app/keys', '#view table'],
      ['/app/team', '#view table'],
      ['/app/audit', '#view table'],
    ] as const) {
      await page.goto(target);
      await page.locator(ready).first().waitFor();
      await page.getByRole('form', { name: 'Account switcher' }).waitFor();
      expect(await horizontalOverflow(page), target).to.equal(0);
      expect(await lowContrastText(page), target).to.deep.equal([]);
    }
    await screenshot(page, 'audit-375px');
  });
});
