import type { AccountSwitch } from '../acting';
import { html, type SafeHtml } from '../html';
import { accountSwitcher } from './account-switch';

export const ASSETS = '/app/assets';

export interface NavItem {
  href: string;
  label: string;
}

/** The dashboard's sections, in the order of the navigation bar. */
export const NAV: readonly NavItem[] = [
  { href: '/app/links', label: 'Links' },
  { href: '/app/qr', label: 'QR codes' },
  { href: '/app/r/campaigns', label: 'Campaigns' },
  { href: '/app/r/channels', label: 'Channels' },
  { href: '/app/r/domains', label: 'Domains' },
  { href: '/app/r/pixels', label: 'Pixels' },
  { href: '/app/r/splash', label: 'Splash pages' },
  { href: '/app/r/overlays', label: 'CTA overlays' },
  { href: '/app/import', label: 'Import' },
  { href: '/app/keys', label: 'API keys' },
  { href: '/app/team', label: 'Team' },
  { href: '/app/audit', label: 'Audit log' },
  { href: '/app/account', label: 'Account' },
  { href: '/app/security', label: 'Security' },
];

export interface LayoutOptions {
  title: string;
  csrf: string;
  /** The current path, to mark the active section; absent when signed out (no navigation). */
  path?: string;
  body: SafeHtml;
  /** Present on pages the client script renders (see web/app/app.js). */
  view?: string;
  /** The account switcher, on the pages that act in an account (see ../acting.ts). */
  accounts?: AccountSwitch;
}

function navigation(path: string, csrf: string, accounts?: AccountSwitch): SafeHtml {
  const items = NAV.map(({ href, label }) => {
    const current = path === href || path.startsWith(`${href}/`);
    return html`<li>
      <a href="${href}" ${current ? html` aria-current="page"` : ''}>${label}</a>
    </li>`;
  });
  return html`<nav aria-label="Main">
      <ul>
        ${items}
      </ul>
    </nav>
    ${accounts ? accountSwitcher(accounts, csrf) : ''}
    <form method="post" action="/app/signout" class="signout">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <button type="submit" class="link">Sign out</button>
    </form>`;
}

export function layout({ title, csrf, path, body, view, accounts }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="csrf-token" content="${csrf}">
${accounts?.acting ? html`<meta name="linkqr-account" content="${accounts.acting.id}" />` : ''}
<title>${title} · linkqr</title>
<link rel="stylesheet" href="${ASSETS}/app.css">
<script type="module" src="${ASSETS}/app.js"></script>
</head>
<body${view ? html` data-view="${view}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/app">linkqr</a>
  ${path === undefined ? '' : navigation(path, csrf, accounts)}
</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`.value;
}
