// The API keys page: the user's keys with their scopes, a new key (shown once), rotation with a
// grace period, revocation. Keys are always the user's own, whichever account the switcher chose.
import { errorBox, h, nextId, notice, openDialog, ownApi, pager, table } from './core.js';
import { showError } from './forms.js';
/** @typedef {import('../types').KeysPageData} KeysPageData */
/** @typedef {import('../types').KeyItem} KeyItem */
/** @typedef {import('../types').FormRow} FormRow */

/** @param {string | null} date `YYYY-MM-DD HH:MM:SS` in UTC, as the API writes it */
const when = (date) => (date ? `${date} UTC` : '—');

/**
 * A labelled input with the place its error goes.
 * @param {string} name
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement} input
 * @param {string} [help]
 * @returns {FormRow}
 */
function row(name, label, input, help) {
  const id = input.id || nextId(`key-${name}`);
  input.id = id;
  const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
  const helpNode = help ? h('p', { class: 'help', id: `${id}-help` }, help) : null;
  input.setAttribute('aria-describedby', [helpNode ? `${id}-help` : '', `${id}-error`].join(' '));
  const wrapper = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    helpNode,
    error,
  );
  return { field: { name }, input, error, wrapper };
}

/** The current password: a session proves itself again before a key is made or rotated. */
function passwordRow() {
  return row(
    'current',
    'Your current password',
    h('input', { type: 'password', name: 'current', autocomplete: 'current-password' }),
    'A key outlives this session, so the dashboard asks for your password first.',
  );
}

/**
 * The new key, shown this once, with a copy button.
 * @param {string} key
 * @param {string} what
 */
function shownOnce(key, what) {
  return h(
    'div',
    { class: 'notice new-key', role: 'status' },
    h('p', {}, `${what} Store it now: it is shown only this once.`),
    h(
      'p',
      {},
      h('code', { class: 'key', 'data-testid': 'new-key' }, key),
      ' ',
      h('button', { type: 'button', 'data-copy': key }, 'Copy'),
    ),
  );
}

/**
 * The scopes: everything, or no access / read / read and write for each resource.
 * @param {string[]} resources
 */
function scopePicker(resources) {
  const all = /** @type {HTMLInputElement} */ (
    h('input', { type: 'checkbox', id: nextId('scope-all'), name: 'scope-all' })
  );
  const selects = resources.map((resource) => {
    const id = nextId(`scope-${resource}`);
    const select = /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id, name: `scope-${resource}` },
        h('option', { value: '' }, 'no access'),
        h('option', { value: `${resource}:read` }, 'read'),
        h('option', { value: `${resource}:write` }, 'read and write'),
      )
    );
    return {
      select,
      cell: h('div', { class: 'scope' }, h('label', { for: id }, resource), select),
    };
  });
  all.addEventListener('change', () => {
    for (const { select } of selects) select.disabled = all.checked;
  });
  const error = h('p', { class: 'error', id: nextId('scopes-error'), hidden: true });
  const fieldset = h(
    'fieldset',
    { class: 'scopes', 'aria-describedby': error.id },
    h('legend', {}, 'What the key may do'),
    h(
      'div',
      { class: 'field check' },
      all,
      h('label', { for: all.id }, 'Everything (*), like your default key'),
    ),
    h(
      'div',
      { class: 'scope-grid' },
      selects.map((s) => s.cell),
    ),
    error,
  );
  /** @type {FormRow} */
  const formRow = { field: { name: 'scopes' }, input: all, error, wrapper: fieldset };
  const read = () =>
    all.checked ? ['*'] : selects.map(({ select }) => select.value).filter((v) => v !== '');
  return { row: formRow, read };
}

/**
 * @param {KeysPageData} data
 * @param {() => void} reload
 */
function createKey(data, reload) {
  const status = h('div', { class: 'form-status' });
  const name = row(
    'name',
    'Name (required)',
    h('input', { type: 'text', name: 'name', autocomplete: 'off', required: true }),
    'What uses it, e.g. "reporting script".',
  );
  const scopes = scopePicker(data.resources);
  const expires = row(
    'expires',
    'Expires (optional)',
    h('input', { type: 'datetime-local', name: 'expires' }),
    'In your local time; empty: never.',
  );
  const current = passwordRow();
  const rows = [name, scopes.row, expires, current];
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    status,
    rows.map((r) => r.wrapper),
    h('button', { type: 'submit' }, 'Create key'),
  );
  const dialog = openDialog('New API key', form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren();
    for (const r of rows) {
      r.error.hidden = true;
      r.input.removeAttribute('aria-invalid');
    }
    /** @type {Record<string, unknown>} */
    const body = { name: name.input.value.trim(), scopes: scopes.read() };
    if (expires.input.value) body.expires = new Date(expires.input.value).toISOString();
    if (current.input.value) body.current = current.input.value;
    try {
      const answer = /** @type {{ id: number, key: string }} */ (
        /** @type {unknown} */ (await ownApi('POST', '/keys/add', body))
      );
      form.replaceWith(
        h(
          'div',
          {},
          shownOnce(answer.key, `Your new key "${String(body.name)}".`),
          h('button', { type: 'button', onclick: () => dialog.close() }, 'Done'),
        ),
      );
      reload();
    } catch (error) {
      showError(rows, status, error);
    }
  });
}

/**
 * @param {KeysPageData} data
 * @param {KeyItem} key
 * @param {() => void} reload
 */
function rotateKey(data, key, reload) {
  const status = h('div', { class: 'form-status' });
  const hour = 3600;
  const choices = [
    [0, 'none: the old key stops at once'],
    [hour, 'one hour'],
    [24 * hour, 'one day'],
    [data.maxGrace, 'one week'],
  ].filter(([seconds]) => Number(seconds) <= data.maxGrace);
  const grace = row(
    'grace',
    'The old key keeps working for',
    h(
      'select',
      { name: 'grace' },
      choices.map(([seconds, label]) => h('option', { value: String(seconds) }, String(label))),
    ),
    'Time to give the programs that use it the new key.',
  );
  const current = passwordRow();
  const rows = [grace, current];
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    status,
    rows.map((r) => r.wrapper),
    h('button', { type: 'submit' }, 'Rotate key'),
  );
  const dialog = openDialog(`Rotate "${key.name}"`, form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren();
    /** @type {Record<string, unknown>} */
    const body = { grace: Number(grace.input.value) };
    if (current.input.value) body.current = current.input.value;
    try {
      const answer = /** @type {{ key: string, previousuntil: string | null }} */ (
        /** @type {unknown} */ (await ownApi('POST', `/key/${key.id}/rotate`, body))
      );
      const old = answer.previousuntil
        ? `The old key works until ${when(answer.previousuntil)}.`
        : 'The old key no longer works.';
      form.replaceWith(
        h(
          'div',
          {},
          shownOnce(answer.key, `The new key of "${key.name}". ${old}`),
          h('button', { type: 'button', onclick: () => dialog.close() }, 'Done'),
        ),
      );
      reload();
    } catch (error) {
      showError(rows, status, error);
    }
  });
}

/** @param {KeyItem} key */
function keyCell(key) {
  return h(
    'div',
    {},
    key.prefix ? h('code', {}, `${key.prefix}…`) : '—',
    key.previous
      ? h(
          'p',
          { class: 'muted' },
          'Old key ',
          key.previous.prefix ? h('code', {}, `${key.previous.prefix}…`) : '',
          ` works until ${when(key.previous.until)}`,
        )
      : null,
  );
}

/** @param {HTMLElement} root @param {KeysPageData} data */
export function keysView(root, data) {
  const results = h('div', { 'aria-live': 'polite' });
  const message = h('div', {});
  let page = 1;

  /** @param {KeyItem} key */
  async function revoke(key) {
    if (!confirm(`Revoke "${key.name}"? Programs using it stop working at once.`)) return;
    try {
      await ownApi('DELETE', `/key/${key.id}/delete`);
      await load();
      message.replaceChildren(notice(`The key "${key.name}" has been revoked.`));
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  async function load() {
    try {
      const body = /** @type {import('../types').ListAnswer<KeyItem>} */ (
        await ownApi('GET', `/keys?limit=20&page=${page}`)
      );
      const keys = body.data.keys || [];
      results.replaceChildren(
        table(
          ['Name', 'Key', 'Scopes', 'Created', 'Last used', 'Expires', 'Actions'],
          keys,
          (key) => [
            key.name,
            keyCell(key),
            key.scopes.join(', '),
            when(key.created),
            when(key.lastused),
            key.expires ? when(key.expires) : 'never',
            h(
              'div',
              { class: 'actions' },
              h(
                'button',
                {
                  type: 'button',
                  onclick: () => rotateKey(data, key, load),
                  'aria-label': `Rotate ${key.name}`,
                },
                'Rotate',
              ),
              key.id === 0
                ? null
                : h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      onclick: () => revoke(key),
                      'aria-label': `Revoke ${key.name}`,
                    },
                    'Revoke',
                  ),
            ),
          ],
        ),
        pager(body.data, (p) => {
          page = p;
          load();
        }),
      );
    } catch (error) {
      results.replaceChildren(errorBox(error));
    }
  }

  root.replaceChildren(
    h(
      'p',
      {},
      'Give each program its own key with only the rights it needs, so one can be revoked without touching the others. ',
      'Keys are yours: in an account you are a member of, a key also needs your role there to allow what it does.',
    ),
    h(
      'p',
      {},
      h(
        'button',
        { type: 'button', class: 'primary', onclick: () => createKey(data, load) },
        'New key',
      ),
    ),
    message,
    results,
  );
  load();
}
