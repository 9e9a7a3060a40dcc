// Entry point: wires the server-rendered pages and starts the view the page names.
import { copyText } from './core.js';

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (target) copyText(target.getAttribute('data-copy') || '', target);
});
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});

/** @typedef {(root: HTMLElement, data: never) => unknown} View */

/** @type {Record<string, () => Promise<View>>} */
const views = {
  links: () => import('./links.js').then((m) => m.linksView),
  'link-new': () => import('./links.js').then((m) => m.linkNewView),
  link: () => import('./links.js').then((m) => m.linkView),
  qrs: () => import('./qr.js').then((m) => m.qrGalleryView),
  'qr-new': () => import('./qr.js').then((m) => m.qrNewView),
  qr: () => import('./qr.js').then((m) => m.qrView),
  resource: () => import('./resources.js').then((m) => m.resourceView),
  import: () => import('./import.js').then((m) => m.importView),
  keys: () => import('./keys.js').then((m) => m.keysView),
  team: () => import('./team.js').then((m) => m.teamView),
  audit: () => import('./audit.js').then((m) => m.auditView),
};

const name = document.body.dataset.view;
const root = document.getElementById('view');
const dataNode = document.getElementById('page-data');
if (name && root && views[name]) {
  const data = dataNode ? JSON.parse(dataNode.textContent || 'null') : null;
  views[name]()
    .then((view) => view(root, /** @type {never} */ (data)))
    .catch((/** @type {unknown} */ error) => {
      root.textContent = `This page could not start: ${String(error)}`;
    });
}
