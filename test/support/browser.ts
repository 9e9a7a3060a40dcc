import { chromium, type Browser, type BrowserContext, type Route } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
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

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Requests that would have left the machine, answered in the browser instead. */
export interface Intercepted {
  urls: string[];
}

/**
 * A context in which only loopback requests reach the network. Every other request is recorded
 * and answered locally: scripts with an empty script, images with a 1x1 GIF, documents with a
 * small page titled by their URL, so a test can follow a visitor to an outside target offline.
 */
export async function offlineContext(browser: Browser): Promise<{
  context: BrowserContext;
  intercepted: Intercepted;
}> {
  const context = await browser.newContext();
  const intercepted: Intercepted = { urls: [] };
  await context.route('**/*', (route: Route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
    intercepted.urls.push(url.href);
    const type = route.request().resourceType();
    if (type === 'script') return route.fulfill({ contentType: 'text/javascript', body: '' });
    if (type === 'image') return route.fulfill({ contentType: 'image/gif', body: GIF });
    if (type === 'document')
      return route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>outside</title><h1>Outside page ${url.pathname}</h1>`,
      });
    return route.fulfill({ status: 204, body: '' });
  });
  return { context, intercepted };
}
