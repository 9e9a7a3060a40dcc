import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app-harness';
import { addOverlay, addPixel, addSplash, FB_TAG } from '../support/behaviour';
import { launchChromium, offlineContext, type Intercepted } from '../support/browser';
import { client, type ListBody } from '../support/http';
import { createLink } from '../support/links';
import { createTestUser } from '../support/users';

const TARGET = 'https://target.example/landing';

describe('visitor pages in headless Chromium', function () {
  this.timeout(60_000);
  let app: TestApp;
  let apiKey: string;
  let browser: Browser;
  let context: BrowserContext;
  let intercepted: Intercepted;
  let page: Page;
  let policyErrors: string[];

  before(async () => {
    app = await startTestApp();
    apiKey = (await createTestUser()).apiKey;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app.close();
  });
  beforeEach(async () => {
    ({ context, intercepted } = await offlineContext(browser));
    page = await context.newPage();
    policyErrors = [];
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy/i.test(m.text())) policyErrors.push(m.text());
    });
  });
  afterEach(() => context.close());

  const shortUrl = (alias: string) => `${app.url}/${alias}`;

  it('fires a link’s pixel (the network’s script and beacon) and lands on the target', async () => {
    const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
    const { alias } = await createLink(app, apiKey, { url: TARGET, pixels: [pixel] });
    await page.goto(shortUrl(alias));
    await page.waitForURL(TARGET);
    expect(await page.textContent('h1')).to.equal('Outside page /landing');
    expect(intercepted.urls).to.include('https://connect.facebook.net/en_US/fbevents.js');
    expect(intercepted.urls).to.include(
      `https://www.facebook.com/tr?id=${FB_TAG}&ev=PageView&noscript=1`,
    );
    expect(policyErrors).to.deep.equal([]);
  });

  it('counts a splash page down, then lands on the target', async () => {
    const splash = await addSplash(app, apiKey, { title: 'Hello', counter: 2 });
    const { alias } = await createLink(app, apiKey, { url: TARGET, type: splash });
    const seen = new Set<string>();
    await page.exposeFunction('noteCount', (text: string) => seen.add(text));
    // Runs in the page: reports every value the countdown shows.
    await page.addInitScript({
      content: `document.addEventListener('DOMContentLoaded', () => {
        const out = document.getElementById('linkqr-count');
        if (!out) return;
        window.noteCount(out.textContent);
        new MutationObserver(() => window.noteCount(out.textContent)).observe(out, {
          childList: true, characterData: true, subtree: true,
        });
      });`,
    });
    await page.goto(shortUrl(alias));
    expect(await page.textContent('h1')).to.equal('Hello');
    await page.waitForURL(TARGET);
    expect([...seen]).to.include.members(['2', '1', '0']);
    expect(policyErrors).to.deep.equal([]);
  });

  it('sends a contact overlay’s form in place and lists the response for the owner', async () => {
    const overlay = await addOverlay(app, apiKey, { type: 'contact', message: 'Talk to us' });
    const { alias, id } = await createLink(app, apiKey, {
      url: TARGET,
      type: `overlay-${overlay}`,
    });
    await page.goto(shortUrl(alias));
    const frame = page.frameLocator('iframe');
    await frame.locator('h1').waitFor();
    expect(await frame.locator('h1').textContent()).to.equal('Outside page /landing');
    await page.fill('#linkqr-contact input[name=name]', 'Browser Visitor');
    await page.fill('#linkqr-contact input[name=email]', 'visitor@example.com');
    await page.fill('#linkqr-contact textarea[name=message]', 'Hello from Chromium');
    await page.click('#linkqr-contact button[type=submit]');
    await page.waitForSelector('#linkqr-contact-status:not(:empty)');
    expect(await page.textContent('#linkqr-contact-status')).to.equal(
      'Thank you, your message has been sent.',
    );
    expect(page.url()).to.equal(shortUrl(alias));
    const res = await client(app.url, apiKey).get<
      ListBody<'responses', { link: number; name: string; email: string; message: string }>
    >(`/api/overlay/${overlay}/responses`);
    expect(
      res.body.data.responses.map(({ link, name, email, message }) => ({
        link,
        name,
        email,
        message,
      })),
    ).to.deep.equal([
      {
        link: id,
        name: 'Browser Visitor',
        email: 'visitor@example.com',
        message: 'Hello from Chromium',
      },
    ]);
    expect(policyErrors).to.deep.equal([]);
  });
});
