import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { domainCacheFor } from '../../src/domains/domain-cache';
import { recheckDomains } from '../../src/domains/domain-verification.service';
import { createLogger } from '../../src/shared/infra/logger';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { fakeResolver, type FakeRecords } from '../support/domains';

/** Issue 29, M6: the domains page shows each domain's ownership state and the record it needs. */
describe('dashboard in a browser: branded domain ownership', function () {
  this.timeout(60_000);
  const zone: Record<string, FakeRecords> = { 'linkqr.test': { a: ['203.0.113.10'] } };
  const { resolver } = fakeResolver(zone);
  let app: TestApp;
  let browser: Browser;

  before(async function () {
    this.timeout(60_000);
    app = await startTestApp({ DOMAIN_CHECK: 'dns' }, { domainResolver: resolver });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows a new domain as not verified with its TXT record, verifies it, then shows it suspended', async () => {
    const user = await createDashboardUser();
    const host = `go-${user.user.id}.example.com`;
    zone[host] = { a: ['203.0.113.10'] };
    const context = await browser.newContext({ baseURL: app.url });
    const page = await context.newPage();
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/links');

    await page.goto('/app/r/domains');
    await page.getByRole('button', { name: 'New domain' }).click();
    const dialog = page.getByRole('dialog', { name: 'New domain' });
    await dialog.getByLabel('Domain').fill(`https://${host}`);
    await dialog.getByRole('button', { name: 'Create domain' }).click();
    await page.getByText('Not verified yet: its links are not served').waitFor();
    const record = (await page.locator('pre', { hasText: `_linkqr.${host}.` }).textContent()) ?? '';
    const token = /"(linkqr-verify=[A-Za-z0-9_-]+)"/.exec(record)?.[1];
    expect(token, record).to.be.a('string');

    // Verify before the record exists: the error names the record to create.
    await page.getByRole('button', { name: `Verify https://${host}` }).click();
    await page.getByText(`create a TXT record named _linkqr.${host}`).waitFor();

    zone[`_linkqr.${host}`] = { txt: [token ?? ''] };
    await page.getByRole('button', { name: `Verify https://${host}` }).click();
    await page.getByText('Domain ownership verified').waitFor();
    await page.locator('[data-ownership="verified"]').waitFor();
    expect(await page.getByRole('button', { name: `Verify https://${host}` }).count()).to.equal(0);

    // The record disappears; the worker's next check suspends the domain.
    delete zone[`_linkqr.${host}`];
    await recheckDomains(
      {
        resolver,
        domainCheck: 'dns',
        recheckMs: 60_000,
        hosts: domainCacheFor(app.deps),
        logger: createLogger('silent'),
      },
      new Date(Date.now() + 7 * 3_600_000),
    );
    await page.reload();
    await page.getByText('Suspended: the TXT record was not found, its links are paused').waitFor();
    await page.getByRole('button', { name: `Verify https://${host}` }).waitFor();
    await screenshot(page, 'domains-ownership');
    await context.close();
  });
});
