import type { Response } from 'express';
import { escapeHtml, sendPage } from '../shared/http/pages';

/**
 * The form posts to this page and the answer redirects to another origin; helmet's default
 * `form-action 'self'` would make browsers block that redirect, so this page sets its own policy.
 */
const FORM_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; base-uri 'none'; frame-ancestors 'none'";

export function sendPasswordForm(res: Response, status: 200 | 401, alias: string): void {
  res.setHeader('Content-Security-Policy', FORM_PAGE_POLICY);
  res.setHeader('Cache-Control', 'no-store');
  const error = status === 401 ? '<p role="alert">Wrong password, try again.</p>' : '';
  sendPage(
    res,
    status,
    'Password required',
    `<h1>This link is protected</h1>${error}<form method="post"><label>Password for <code>${escapeHtml(alias)}</code> <input type="password" name="password" autocomplete="current-password" required autofocus></label> <button type="submit">Continue</button></form>`,
  );
}

export function sendLinkGone(res: Response): void {
  sendPage(res, 410, 'Link expired', '<h1>This link has expired</h1>');
}

export function sendTooManyAttempts(res: Response, retryAfterSeconds: number): void {
  res.setHeader('Retry-After', String(retryAfterSeconds));
  sendPage(
    res,
    429,
    'Too many attempts',
    `<h1>Too many wrong passwords</h1><p>Try again in ${Math.ceil(retryAfterSeconds / 60)} minutes.</p>`,
  );
}
