import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { readsAs } from '../../src/qr-codes/design/decode';
import type { QrRenderWorker } from '../../workers/qr-render/qr-render.worker';
import { startTestApp, type TestApp } from '../support/app-harness';
import { launchChromium, screenshot } from '../support/browser';
import { createDashboardUser, TEST_PASSWORD } from '../support/dashboard';
import { client } from '../support/http';
import { solidLogo, startQrWorker } from '../support/qr';

interface PrintData {
  data: { moduleMm: number; width: number; height: number; contrast: number; warnings: string[] };
}

describe('dashboard QR style controls and print check in a browser', function () {
  this.timeout(90_000);
  let app: TestApp;
  let worker: QrRenderWorker;
  let browser: Browser;
  let logoDir: string;

  before(async function () {
    this.timeout(60_000);
    logoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-style-logos-'));
    fs.writeFileSync(path.join(logoDir, 'red.png'), await solidLogo({ r: 220, g: 30, b: 30 }));
    app = await startTestApp({ LOGO_DIR: logoDir });
    worker = startQrWorker(app);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await worker?.close();
    await app?.close();
    fs.rmSync(logoDir, { recursive: true, force: true });
  });

  async function signedIn() {
    const user = await createDashboardUser();
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
    return { user, context, page };
  }

  const previewSvg = (page: Page) => page.locator('.preview svg').evaluate((el) => el.outerHTML);

  /** Polls a condition the page's CSP keeps out of waitForFunction (no string eval). */
  async function until(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 300; i += 1) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('condition never held');
  }

  it('sets a style in the live preview, shows refusals beside their control, saves, and checks the print', async () => {
    const user = await createDashboardUser();
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));

    await page.goto('/app/qr/new');
    await page.getByLabel('Type').selectOption('text');
    await page.getByLabel('Text', { exact: true }).fill('Poster: spring fair');
    await page.getByLabel('Name (for you)').fill('Poster');
    await page.locator('.preview svg').waitFor();
    const plain = await previewSvg(page);
    expect(plain).not.to.include('Gradient');

    // A corner colour too pale to scan: the preview's 422 lands beside that colour input...
    await page.getByLabel('Colour the corners separately').check();
    await page.getByLabel('Corner frame colour', { exact: true }).fill('#eeeeee');
    const frameColourError = page.locator('#view .field', {
      has: page.getByLabel('Corner frame colour', { exact: true }),
    });
    await frameColourError
      .locator('.error')
      .getByText(/style\.corners\.frame\.color/)
      .waitFor();
    expect(
      await page.getByLabel('Corner frame colour', { exact: true }).getAttribute('aria-invalid'),
    ).to.equal('true');
    // ...and the API's own 422 on saving lands there as well.
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await frameColourError
      .locator('.error')
      .getByText(/contrast/i)
      .waitFor();
    expect(new URL(page.url()).pathname).to.equal('/app/qr/new');

    // A gradient that crosses the background's lightness is refused beside the gradient.
    await page.getByLabel('Colour the corners separately').uncheck();
    await page.getByLabel('Gradient', { exact: true }).selectOption('linear');
    await page.getByLabel('Gradient colour 2', { exact: true }).fill('#f0f0f0');
    const gradientRow = page.locator('#view .field', {
      has: page.getByLabel('Gradient', { exact: true }),
    });
    await gradientRow
      .locator('.error')
      .getByText(/style\.gradient crosses/)
      .waitFor();

    // A readable design: every part of the style shows in the preview.
    await page.getByLabel('Gradient colour 1', { exact: true }).fill('#0a1478');
    await page.getByLabel('Gradient colour 2', { exact: true }).fill('#5a0a3c');
    await page.getByLabel('Gradient rotation (degrees)').fill('45');
    await page.getByLabel('Dot shape').selectOption('dots');
    await page.getByLabel('Corner frame shape').selectOption('circle');
    await page.getByLabel('Corner centre shape').selectOption('rounded');
    await page.getByLabel('Frame', { exact: true }).selectOption('banner-bottom');
    await page.getByLabel('Frame text (up to 30 characters)').fill('SCAN ME');
    await page.getByLabel('Quiet zone in modules (2-16)').fill('3');
    await page
      .getByLabel('Error correction (automatic: H with a logo, M without)')
      .selectOption('Q');
    // The preview once it shows the gradient and the banner (a viewBox taller than wide).
    await page.locator('.preview svg linearGradient').first().waitFor({ state: 'attached' });
    await until(async () => {
      const [, , w, h] = String(await page.locator('.preview svg').getAttribute('viewBox')).split(
        ' ',
      );
      return Number(h) > Number(w);
    });
    const styled = await previewSvg(page);
    expect(styled).not.to.equal(plain);
    expect(styled).to.include('<linearGradient');
    expect(styled).to.match(/C[\d.]/, 'round dots and circular corners are curves');
    const box = await page.locator('.preview svg').boundingBox();
    expect(box && box.height > box.width, 'the banner makes the preview taller').to.equal(true);
    expect(await page.locator('#view .field .error:not([hidden])').count()).to.equal(0);
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.waitForURL(/\/app\/qr\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const api = client(app.url, user.apiKey);
    const details = await api.get<{
      details: { link: string; style: Record<string, unknown> };
    }>(`/api/qr/${id}`);
    expect(details.body.details.style).to.deep.include({
      dots: 'dots',
      corners: { frame: { shape: 'circle' }, ball: { shape: 'rounded' } },
      gradient: { type: 'linear', colors: ['rgb(10,20,120)', 'rgb(90,10,60)'], rotation: 45 },
      frame: {
        type: 'banner-bottom',
        text: 'SCAN ME',
        color: 'rgb(0,0,0)',
        textColor: 'rgb(255,255,255)',
      },
      margin: 3,
      errorCorrection: 'Q',
    });

    // The rendered image carries the style (the banner makes it taller) and reads back.
    const image = page.getByTestId('qr-image');
    await image.waitFor({ state: 'visible', timeout: 30_000 });
    await until(() =>
      image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
    );
    const src = await image.getAttribute('src');
    const png = Buffer.from(await (await fetch(new URL(String(src), app.url))).arrayBuffer());
    const meta = await sharp(png).metadata();
    expect(Number(meta.height)).to.be.greaterThan(Number(meta.width));
    expect(await readsAs(png, 'Poster: spring fair', Number(meta.width))).to.equal(undefined);
    // The edit form starts from the saved style.
    expect(await page.getByLabel('Dot shape').inputValue()).to.equal('dots');
    expect(await page.getByLabel('Frame text (up to 30 characters)').inputValue()).to.equal(
      'SCAN ME',
    );

    // The print check beside the preview, for 1 m and then 5 m, as the API answers it.
    const check = page.getByTestId('print-check');
    await check.waitFor();
    const at1 = await api.get<PrintData>(`/api/qr/${id}/print?distance=1`);
    await check.getByText(`${at1.body.data.moduleMm} mm`, { exact: true }).waitFor();
    await page.getByLabel('Scanning distance in metres').fill('5');
    const at5 = await api.get<PrintData>(`/api/qr/${id}/print?distance=5`);
    expect(at5.body.data.moduleMm).to.be.greaterThan(at1.body.data.moduleMm);
    await check.getByText(`${at5.body.data.moduleMm} mm`, { exact: true }).waitFor();
    const text = String(await check.textContent());
    for (const term of ['Module size', 'Total size', 'Contrast', 'Quiet zone', 'headroom']) {
      expect(text).to.include(term);
    }
    expect(text).to.include(`${at5.body.data.width} × ${at5.body.data.height} mm`);
    expect(text).to.include(`${at5.body.data.contrast.toFixed(2)}:1`);
    expect(text).to.include('3 modules');
    // A quiet zone under the ISO 4 modules is among the warnings shown.
    expect(at5.body.data.warnings.length).to.be.greaterThan(0);
    for (const warning of at5.body.data.warnings) {
      await page.getByRole('list', { name: 'Warnings' }).getByText(warning).waitFor();
    }
    await screenshot(page, 'qr-style-print');
    await context.close();
  });

  it('sets the logo size, shows the size a symbol cannot carry beside it, and saves the largest one that reads', async () => {
    const { user, context, page } = await signedIn();
    await page.goto('/app/qr/new');
    await page.getByLabel('Type').selectOption('text');
    await page.getByLabel('Text', { exact: true }).fill('https://example.com/menu');
    await page.getByLabel('Logo: an image URL, or upload one below').fill('red.png');
    const logoSize = page.getByLabel("Logo size (% of the code's width, 10-40)");
    expect(await logoSize.inputValue()).to.equal('25');
    await page.locator('.preview svg image').waitFor({ state: 'attached' });

    // 40 % is more than this symbol's error correction recovers: refused beside the control.
    await logoSize.fill('40');
    const row = page.locator('#view .field', { has: logoSize });
    await row
      .locator('.error')
      .getByText(/logo covers \d+ codewords .* use a smaller style\.logoSize/)
      .waitFor();
    expect(await logoSize.getAttribute('aria-invalid')).to.equal('true');

    // A longer payload (a larger symbol) carries it: the refusal goes, the code is saved.
    const data = 'https://example.com/spring-fair-menu';
    await page.getByLabel('Text', { exact: true }).fill(data);
    await until(async () => (await row.locator('.error:not([hidden])').count()) === 0);
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.waitForURL(/\/app\/qr\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const details = await client(app.url, user.apiKey).get<{
      details: { style: Record<string, unknown> };
    }>(`/api/qr/${id}`);
    expect(details.body.details.style).to.deep.equal({ logoSize: 0.4 });
    const image = page.getByTestId('qr-image');
    await image.waitFor({ state: 'visible', timeout: 30_000 });
    const src = await image.getAttribute('src');
    const png = Buffer.from(await (await fetch(new URL(String(src), app.url))).arrayBuffer());
    const meta = await sharp(png).metadata();
    expect(await readsAs(png, data, Number(meta.width))).to.equal(undefined);
    expect(await page.getByLabel("Logo size (% of the code's width, 10-40)").inputValue()).to.equal(
      '40',
    );
    // The print file, drawn by the worker, downloads from the code's page.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    const pdf = await fs.promises.readFile(await download.path());
    expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
    expect(download.suggestedFilename()).to.equal(`qr-${id}.pdf`);
    await context.close();
  });
});
