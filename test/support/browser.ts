import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium, headless (`.ci/run` installs it when it is missing). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (as .ci/run does)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
    ],
  });
}

/**
 * Screenshots go to docs/screenshots (referenced from the README) when UPDATE_SCREENSHOTS=1,
 * else to a scratch folder, so an ordinary test run leaves the work tree unchanged.
 */
export const screenshotDir =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.resolve(__dirname, '../../docs/screenshots')
    : path.resolve(__dirname, '../../data/test-screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

/** How far the page is wider than the viewport (0 = no horizontal scrolling). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
}
