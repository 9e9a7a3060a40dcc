// The Audit log page: every write to the account the dashboard acts in, newest first, a page at a
// time, filtered by date, record type and record id as GET /api/audit allows. The filters live in
// the page's address, so a filtered view can be bookmarked or shared.
import { api, errorBox, h, nextId, notice, pager, table } from './core.js';
import { showError } from './forms.js';
/** @typedef {import('../types').AuditPageData} AuditPageData */
/** @typedef {import('../types').AuditItem} AuditItem */
/** @typedef {import('../types').FormRow} FormRow */

const FILTERS = ['from', 'to', 'type', 'id'];

/** @param {number} n */
const pad = (n) => String(n).padStart(2, '0');

/**
 * A datetime-local value (local time) as the API's ISO 8601, and back.
 * @param {string} local
 */
const toIso = (local) => (local ? new Date(local).toISOString() : '');
/** @param {string} iso */
function toLocal(iso) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** @param {Record<string, unknown>} changes */
function changesCell(changes) {
  const entries = Object.entries(changes);
  if (!entries.length) return '—';
  return h(
    'ul',
    { class: 'changes' },
    entries.map(([field, value]) =>
      h(
        'li',
        {},
        h('code', {}, field),
        ': ',
        typeof value === 'string' ? value : JSON.stringify(value),
      ),
    ),
  );
}

/** @param {HTMLElement} root @param {AuditPageData} data */
export function auditView(root, data) {
  const params = new URLSearchParams(location.search);
  const results = h('div', { 'aria-live': 'polite' });
  let page = Math.max(1, Number(params.get('page')) || 1);

  /** @param {number} id */
  const who = (id) => data.people[String(id)] || `user ${id}`;

  const status = h('div', { class: 'form-status' });
  /**
   * @param {string} name
   * @param {string} label
   * @param {HTMLInputElement | HTMLSelectElement} input
   * @returns {FormRow}
   */
  const filterRow = (name, label, input) => {
    const id = nextId(`audit-${name}`);
    input.id = id;
    input.setAttribute('name', name);
    input.setAttribute('aria-describedby', `${id}-error`);
    const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
    const wrapper = h('div', { class: 'field' }, h('label', { for: id }, label), input, error);
    return { field: { name }, input, error, wrapper };
  };
  const rows = [
    filterRow(
      'from',
      'From',
      h('input', { type: 'datetime-local', value: toLocal(params.get('from') || '') }),
    ),
    filterRow(
      'to',
      'To',
      h('input', { type: 'datetime-local', value: toLocal(params.get('to') || '') }),
    ),
    filterRow(
      'type',
      'Record type',
      h(
        'select',
        {},
        h('option', { value: '' }, 'any'),
        data.types.map((t) => h('option', { value: t, selected: params.get('type') === t }, t)),
      ),
    ),
    filterRow(
      'id',
      'Record id',
      h('input', { type: 'number', min: 1, inputmode: 'numeric', value: params.get('id') || '' }),
    ),
  ];
  const form = h(
    'form',
    { class: 'filters', novalidate: true, 'aria-label': 'Filter the audit log' },
    status,
    rows.map((r) => r.wrapper),
    h('button', { type: 'submit' }, 'Show'),
  );

  /** The filters as the API's query, from the form. */
  function query() {
    const out = new URLSearchParams();
    for (const row of rows) {
      const name = row.field.name;
      const value = name === 'from' || name === 'to' ? toIso(row.input.value) : row.input.value;
      if (value) out.set(name, value);
    }
    return out;
  }

  async function load() {
    status.replaceChildren();
    for (const row of rows) {
      row.error.hidden = true;
      row.input.removeAttribute('aria-invalid');
    }
    const filters = query();
    const address = new URLSearchParams(filters);
    if (page > 1) address.set('page', String(page));
    history.replaceState(null, '', `${location.pathname}${address.size ? `?${address}` : ''}`);
    filters.set('page', String(page));
    filters.set('limit', '25');
    try {
      const body = /** @type {import('../types').ListAnswer<AuditItem>} */ (
        await api('GET', `/audit?${filters}`)
      );
      const entries = body.data.entries || [];
      if (!entries.length) {
        const filtered = FILTERS.some((f) => filters.has(f));
        results.replaceChildren(
          notice(filtered ? 'Nothing matches these filters.' : 'Nothing has been changed yet.'),
        );
        return;
      }
      results.replaceChildren(
        table(
          ['When (UTC)', 'Who', 'With', 'Request', 'Record', 'Changes', 'From'],
          entries,
          (e) => [
            e.date,
            who(e.user),
            e.via === 'session' ? 'dashboard' : e.key === 0 ? 'default key' : `key ${e.key}`,
            h('code', {}, `${e.method} ${e.route}`),
            e.record === null ? e.type : `${e.type} ${e.record}`,
            changesCell(e.changes),
            e.ip || '—',
          ],
        ),
        pager(body.data, (p) => {
          page = p;
          load();
        }),
      );
    } catch (error) {
      const problem = /** @type {{ field?: string }} */ (error);
      if (problem && problem.field && FILTERS.includes(problem.field)) {
        showError(rows, status, error);
        results.replaceChildren();
      } else {
        results.replaceChildren(errorBox(error));
      }
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    page = 1;
    load();
  });

  root.replaceChildren(
    h(
      'p',
      {},
      `Every change to the account of ${data.account.username}, newest first: who made it, with which key or in the dashboard, what it set (secrets never shown), and from where.`,
    ),
    form,
    results,
  );
  load();
}
