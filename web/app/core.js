// Shared helpers of the dashboard's client: DOM building, API calls, forms and errors.
/** @typedef {import('../types').Child} Child */
/** @typedef {import('../types').Answer} Answer */
/** @typedef {import('../types').PageInfo} PageInfo */

const csrfMeta = document.querySelector('meta[name="csrf-token"]');
export const csrf = csrfMeta ? csrfMeta.getAttribute('content') || '' : '';
const accountMeta = document.querySelector('meta[name="linkqr-account"]');
/** The account the switcher chose (its owner's id), sent as `Linkqr-Account`; '' is the user's own. */
export const actingAccount = accountMeta ? accountMeta.getAttribute('content') || '' : '';

/**
 * Builds an element. Children are nodes or text (never parsed as HTML); attributes starting
 * with `on` become listeners.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), /** @type {EventListener} */ (value));
    } else if (name === 'class') {
      el.className = String(value);
    } else if (name in el && typeof value !== 'string') {
      // Properties such as `checked`, `disabled`, `multiple`, `selected` take their own types.
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el))[name] = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  const flat = /** @type {unknown[]} */ (children).flat(Infinity);
  for (const child of /** @type {Array<Exclude<Child, Child[]>>} */ (flat)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {number} status
   * @param {string} [field]
   */
  constructor(message, status, field) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

/**
 * One call to the API through the session: /app/api mirrors /api, in the account the switcher
 * chose (`account`: an owner's id, '' for the user's own). Callers name the answer's shape with a
 * cast.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {string} [contentType]
 * @param {string} [account]
 * @returns {Promise<Answer>}
 */
export async function api(
  method,
  path,
  body,
  contentType = 'application/json',
  account = actingAccount,
) {
  /** @type {Record<string, string>} */
  const headers = { 'x-csrf-token': csrf, accept: 'application/json' };
  if (account) headers['linkqr-account'] = account;
  /** @type {BodyInit | undefined} */
  let payload;
  if (body !== undefined) {
    headers['content-type'] = contentType;
    payload =
      contentType === 'application/json' ? JSON.stringify(body) : /** @type {Blob} */ (body);
  }
  const res = await fetch(`/app/api${path}`, {
    method,
    headers,
    body: payload,
    credentials: 'same-origin',
  });
  /** @type {Answer} */
  const json = await res.json().catch(() => ({ error: 1 }));
  if (res.status === 401) {
    location.assign(`/app/signin?next=${encodeURIComponent(location.pathname)}`);
  }
  if (!res.ok || json.error === 1) {
    throw new ApiError(json.message || `Request failed (${res.status})`, res.status, json.field);
  }
  return json;
}

/**
 * A call in the user's own account whatever the switcher chose: their keys and their team.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
export const ownApi = (method, path, body) => api(method, path, body, 'application/json', '');

/**
 * The choices one of the caller's own lists offers (their pixels, splash pages, ...).
 * @param {import('../types').OptionsSource} source
 * @returns {Promise<import('../types').FieldOption[]>}
 */
export async function choicesFrom(source) {
  const body = /** @type {import('../types').ListAnswer<import('../types').Item>} */ (
    await api('GET', `${source.path}?limit=100`)
  );
  const items = (body.data && body.data[source.key]) || [];
  return items.map((item) => ({
    value: String(item[source.value]),
    label: String(item[source.label] ?? item[source.value]),
  }));
}

/**
 * @param {string} path
 * @param {number} id
 */
export const withId = (path, id) => path.replace(':id', String(id));

/**
 * The field an API message is about: its `field`, else the field name it starts with.
 * @param {{ message: string, field?: string }} error
 * @param {string[]} names
 * @returns {string | undefined}
 */
export function fieldOf(error, names) {
  if (error.field && names.includes(error.field)) return error.field;
  // A cell of a list (`geotarget.0.link`) belongs to the list's field.
  const list = error.field && names.find((name) => String(error.field).startsWith(`${name}.`));
  if (list) return list;
  const message = String(error.message);
  /** @type {Record<string, string>} */
  const aliases = { alias: 'custom' };
  const sorted = [...names, ...Object.keys(aliases)].sort((a, b) => b.length - a.length);
  for (const name of sorted) {
    if (new RegExp(`^${name.replace(/\./g, '\\.')}(?=[\\s:.,]|$)`, 'i').test(message)) {
      const field = aliases[name] || name;
      if (names.includes(field)) return field;
    }
  }
  return undefined;
}

let uid = 0;
/** @param {string} stem */
export const nextId = (stem) => `${stem}-${(uid += 1)}`;

/**
 * A status line that screen readers announce.
 * @param {string} text
 * @param {'notice' | 'error' | 'muted'} [kind]
 */
export function notice(text, kind = 'notice') {
  return h('p', { class: kind, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/**
 * Copies to the clipboard; the button that asked says so for a moment.
 * @param {string} text
 * @param {EventTarget | null} [target]
 */
export async function copyText(text, target) {
  const button = target instanceof HTMLElement ? target : null;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h('textarea', { class: 'sr-only' }, text);
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  if (button) {
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = label), 1500);
  }
}

/**
 * Previous/next buttons and the page position of a list envelope.
 * @param {PageInfo} data
 * @param {(page: number) => void} go
 */
export function pager(data, go) {
  const { currentpage, maxpage, result } = data;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h(
      'button',
      { type: 'button', disabled: currentpage <= 1, onclick: () => go(currentpage - 1) },
      'Previous',
    ),
    h('span', {}, `Page ${currentpage} of ${maxpage} · ${result} in all`),
    h(
      'button',
      { type: 'button', disabled: currentpage >= maxpage, onclick: () => go(currentpage + 1) },
      'Next',
    ),
  );
}

/**
 * Opens content in a modal dialog (focus moves in and returns on close).
 * @param {string} title
 * @param {Node} content
 */
export function openDialog(title, content) {
  const titleId = nextId('dialog-title');
  const close = h(
    'button',
    { type: 'button', class: 'link', onclick: () => dialog.close() },
    'Close',
  );
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId },
    h('div', { class: 'dialog-head' }, h('h2', { id: titleId }, title), close),
    content,
  );
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/**
 * The page's heading, renamed once the record is known.
 * @param {string} text
 */
export function setTitle(text) {
  const heading = document.getElementById('page-title');
  if (heading) heading.textContent = text;
}

/**
 * The message of anything caught.
 * @param {unknown} error
 */
export const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * Renders a caught error next to nothing in particular.
 * @param {unknown} error
 */
export function errorBox(error) {
  return notice(messageOf(error), 'error');
}

/**
 * A table of `rows`; at phone width the CSS stacks each row with its column names.
 * @template T
 * @param {string[]} columns
 * @param {T[]} rows
 * @param {(row: T) => Child[]} rowCells
 */
export function table(columns, rows, rowCells) {
  return h(
    'table',
    { class: 'list' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          rowCells(row).map((cell, i) => h('td', { 'data-label': columns[i] || '' }, cell)),
        ),
      ),
    ),
  );
}
