// Shared helpers of the dashboard's client: DOM building, API calls, forms and errors.

const csrfMeta = document.querySelector('meta[name="csrf-token"]');
export const csrf = csrfMeta ? csrfMeta.getAttribute('content') || '' : '';

/**
 * Builds an element. Children are nodes or text (never parsed as HTML); attributes starting
 * with `on` become listeners.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'class') {
      el.className = value;
    } else if (name in el && typeof value !== 'string') {
      el[name] = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export class ApiError extends Error {
  constructor(message, status, field) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

/** One call to the API through the session: /app/api mirrors /api. */
export async function api(method, path, body, contentType = 'application/json') {
  const headers = { 'x-csrf-token': csrf, accept: 'application/json' };
  let payload;
  if (body !== undefined) {
    headers['content-type'] = contentType;
    payload = contentType === 'application/json' ? JSON.stringify(body) : body;
  }
  const res = await fetch(`/app/api${path}`, {
    method,
    headers,
    body: payload,
    credentials: 'same-origin',
  });
  const json = await res.json().catch(() => ({}));
  if (res.status === 401) {
    location.assign(`/app/signin?next=${encodeURIComponent(location.pathname)}`);
  }
  if (!res.ok || json.error === 1) {
    throw new ApiError(json.message || `Request failed (${res.status})`, res.status, json.field);
  }
  return json;
}

export const withId = (path, id) => path.replace(':id', String(id));

/** The field an API message is about: its `field`, else the field name it starts with. */
export function fieldOf(error, names) {
  if (error.field && names.includes(error.field)) return error.field;
  const message = String(error.message);
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
export const nextId = (stem) => `${stem}-${(uid += 1)}`;

/** A status line that screen readers announce. */
export function notice(text, kind = 'notice') {
  return h('p', { class: kind, role: kind === 'error' ? 'alert' : 'status' }, text);
}

export async function copyText(text, button) {
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

/** Previous/next buttons and the page position of a list envelope. */
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

/** Opens content in a modal dialog (focus moves in and returns on close). */
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

/** The page's heading, renamed once the record is known. */
export function setTitle(text) {
  const heading = document.getElementById('page-title');
  if (heading) heading.textContent = text;
}

/** The message of anything caught. */
export const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/** Renders a caught error next to nothing in particular. */
export function errorBox(error) {
  return notice(messageOf(error), 'error');
}

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
