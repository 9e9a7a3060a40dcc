import fs from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app-harness';

const CHROMIUM = '/usr/bin/chromium';

describe('the /docs page in a browser', function () {
  this.timeout(60_000);
  let app: TestApp;
  let browser: Browser;

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)`);
    }
    app = await startTestApp();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the document with Swagger UI from this origin only, within its CSP', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('request', (req) => {
      if (!req.url().startsWith(app.url) && !req.url().startsWith('data:')) foreign.push(req.url());
    });
    const res = await page.goto(`${app.url}/docs`);
    expect(res?.status()).to.equal(200);
    expect(res?.headers()['content-security-policy']).to.include("script-src 'self'");
    await page.waitForSelector('.swagger-ui .info .title');
    expect(await page.textContent('.swagger-ui .info .title')).to.include('linkqr API');
    // Every operation of the document is listed (one block per operation).
    await page.waitForSelector('.opblock-summary');
    const operations = await page.locator('.opblock').count();
    expect(operations).to.be.greaterThan(40);
    expect(await page.textContent('body')).to.include('/api/url/add');
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect(foreign, foreign.join('\n')).to.deep.equal([]);
    await page.close();
  });
});
