import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { escapeHtml, renderPage } from '../shared/http/pages';

/** How long the page waits for the app to take over before it sends the visitor to the web. */
export const APP_FALLBACK_MS = 1500;

/** A JSON string safe inside a <script> element. */
function scriptString(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c');
}

/**
 * The page between a rule and an app URL (`myapp://...`): it asks the browser to open the app
 * and, if the page is still showing after a moment (no app took the URL), replaces itself with
 * the web URL. A link to each is on the page for a person or a browser without script.
 */
export function sendAppPage(res: Response, appUrl: string, webUrl: string): void {
  const nonce = randomBytes(16).toString('base64');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  );
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'private, no-store');
  const script = `<script nonce="${nonce}">location.href=${scriptString(appUrl)};setTimeout(function(){if(!document.hidden)location.replace(${scriptString(webUrl)})},${APP_FALLBACK_MS});</script>`;
  const body = `<h1>Opening the app…</h1><p><a href="${escapeHtml(appUrl)}">Open in the app</a> or <a href="${escapeHtml(webUrl)}">continue on the web</a>.</p>${script}`;
  res.status(200).type('html').send(renderPage('Opening the app', body));
}
