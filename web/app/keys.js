// The API keys page: the user's keys with their scopes, a new key (shown once), rotation with a
// grace period, revocation. Keys are always the user's own, whichever account the switcher chose.
import { errorBox, h, notice, openDialog, ownApi, pager, table } from './core.js';
import { passwordRow, row, scopePicker, shownOnce } from './key-forms.js';
import { showError } from './forms.js';
/** @typedef {import('../types').KeysPageData} KeysPageData */
/** @typedef {import('../types').KeyItem} KeyItem */

/** @param {string | null} date `YYYY-MM-DD HH:MM:SS` in UTC, as the API writes it */
const when = (date) => (date ? `${date} UTC` : '—');

/** @param {string} date `YYYY-MM-DD HH:MM:SS` in UTC */
const isPast = (date) => new Date(`${date.replace(' ', 'T')}Z`).getTime() <= Date.now();

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
            key.expires ? `${isPast(key.expires) ? 'expired ' : ''}${when(key.expires)}` : 'never',
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
