import type { AccountSwitch } from '../acting';
import { html, jsonScript } from '../html';
import { layout } from './layout';

export interface ViewPage {
  csrf: string;
  path: string;
  title: string;
  /** Which of web/app/app.js's views renders the page. */
  view: string;
  data: unknown;
  accounts?: AccountSwitch;
}

/** A page the client script fills from the API in one round trip. */
export function viewPage({ csrf, path, title, view, data, accounts }: ViewPage): string {
  const body = html`<h1 id="page-title">${title}</h1>
    <div id="view" aria-live="polite"><p class="muted">Loading…</p></div>
    <noscript
      ><p class="error">
        This page needs JavaScript. Your account, sign-in and API key work without it.
      </p></noscript
    >
    ${jsonScript('page-data', data)}`;
  return layout({ title, csrf, path, body, view, accounts });
}
