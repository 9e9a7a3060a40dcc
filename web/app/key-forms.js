// The Keys page's form parts: labelled inputs with their error places, the password the API asks
// a session for, the scope picker, and a new key shown once.
import { h, nextId } from './core.js';
/** @typedef {import('../types').FormRow} FormRow */

/**
 * A labelled input with the place its error goes.
 * @param {string} name
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement} input
 * @param {string} [help]
 * @returns {FormRow}
 */
export function row(name, label, input, help) {
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
export function passwordRow() {
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
export function shownOnce(key, what) {
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
export function scopePicker(resources) {
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
