import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { TwoFactor } from '../../src/two-factor/two-factor.model';
import { decryptSecret } from '../../src/webhooks/webhook-secret';
import { startTestApp, type TestApp } from '../support/app-harness';
import { baseEnv } from '../support/environment';
import { seriousViolations } from '../support/axe';
import { launchChromium, lowContrastText } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { allowNextCode, totpNow } from '../support/two-factor';
import type { TestUser } from '../support/users';

/** Issue 23: a person sets up two-factor sign-in on the Security page and signs in with a code. */
describe('dashboard two-factor sign-in in a browser', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let user: TestUser;

  before(async () => {
    app = await startTestApp({ SIGNIN_LIMIT_PER_ACCOUNT: '100', SIGNIN_LIMIT_PER_IP: '1000' });
    browser = await launchChromium();
    user = await createDashboardUser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signInWithPassword(page: Page) {
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('enrols from the Security page, then signs in with a code and remembers the device', async () => {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    const found: string[] = [];
    const check = async (what: string) => {
      for (const v of await seriousViolations(page)) found.push(`${what}: ${v}`);
      for (const v of await lowContrastText(page)) found.push(`${what}: low contrast ${v}`);
    };

    await signInWithPassword(page);
    await page.waitForURL('**/app/links');
    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL('**/app/security');
    await check('security, off');
    await page.getByLabel('Current password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: /QR code of the two-factor secret/ });
    await qr.waitFor();
    expect(
      await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).to.be.greaterThan(0);
    const secret = (await page.locator('#totp-secret').textContent())?.trim() ?? '';
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    await check('security, set-up');
    await page.getByLabel('The 6-digit code the app shows now').fill(totpNow(secret));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByText('Two-factor sign-in is on.').waitFor();
    expect(await page.locator('#recovery-codes li').count()).to.equal(10);
    await check('security, recovery codes');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/app/signin');
    await signInWithPassword(page);
    await page.waitForURL('**/app/signin/code');
    await check('sign-in code step');
    await page.getByLabel('Code', { exact: true }).fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').getByText('That code is wrong').waitFor();
    await check('sign-in code step, wrong code');
    // The code that turned it on is spent; the test needs another within the same 30 seconds.
    await allowNextCode(user.user.id);
    await page.getByLabel('Code', { exact: true }).fill(totpNow(secret));
    await page.getByLabel('Remember this device for 30 days').check();
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/app/links');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/app/signin');
    await signInWithPassword(page);
    await page.waitForURL('**/app/links');
    await context.close();
    expect(found, found.join('\n')).to.deep.equal([]);
  });

  it('keeps the Security page and the code step accessible at 375 px', async () => {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: 375, height: 800 },
    });
    const page = await context.newPage();
    await signInWithPassword(page);
    await page.waitForURL('**/app/signin/code');
    const found = await seriousViolations(page);
    await allowNextCode(user.user.id);
    const { secret } = await secretOf(user.user.id);
    await page.getByLabel('Code', { exact: true }).fill(totpNow(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/app/links');
    await page.goto('/app/security');
    await page.getByText('Two-factor sign-in is').waitFor();
    found.push(...(await seriousViolations(page)));
    await context.close();
    expect(found, found.join('\n')).to.deep.equal([]);
  });
});

/** The user's TOTP secret, decrypted with the test key (the second test picks up from the first). */
async function secretOf(userId: number): Promise<{ secret: string }> {
  const doc = await TwoFactor.findOne({ userId }).lean();
  const key = Buffer.from(baseEnv().WEBHOOK_SECRET_KEY as string, 'hex');
  return { secret: decryptSecret(doc?.secret as string, key) };
}
