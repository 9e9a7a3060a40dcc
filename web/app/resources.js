// Campaigns, channels, domains, pixels, splash pages and overlays: list, create, edit, delete.
import { api, errorBox, h, notice, openDialog, pager, table, withId } from './core.js';
import { resourceForm } from './forms.js';
/** @typedef {import('../types').Column} Column */
/** @typedef {import('../types').Item} Item */
/** @typedef {import('../types').ResourceView} ResourceView */
/** @typedef {import('../types').ResourcePage} ResourcePage */
/** @typedef {import('../types').ListAnswer<Item>} ItemList */

/**
 * @param {Column} column
 * @param {Item} item
 */
function cell(column, item) {
  const value = item[column.name];
  if (column.kind === 'verification') return ownership(value);
  if (column.kind === 'bool') return value ? 'yes' : 'no';
  if (value === null || value === undefined || value === false || value === '') return '—';
  if (column.kind === 'link' && typeof value === 'string')
    return h('a', { href: value, class: 'url' }, value);
  if (column.kind === 'code') return h('code', { class: 'url' }, String(value));
  return h('span', { class: 'url' }, String(value));
}

/** @type {Record<string, string>} */
const OWNERSHIP = {
  verified: 'Verified',
  pending: 'Not verified yet: its links are not served',
  suspended: 'Suspended: the TXT record was not found, its links are paused',
};

/**
 * A branded domain's ownership state and, until it is verified, the TXT record that proves it.
 * @param {unknown} value
 */
function ownership(value) {
  if (!value || typeof value !== 'object') return '—';
  const v = /** @type {{ status: string, record: { name: string, value: string | null } }} */ (
    value
  );
  const state = h(
    'strong',
    { class: v.status === 'verified' ? 'ok' : 'warn', 'data-ownership': v.status },
    OWNERSHIP[v.status] ?? v.status,
  );
  if (v.status === 'verified' || !v.record.value) return state;
  return h(
    'div',
    {},
    state,
    h('p', {}, 'Create this TXT record at your DNS provider, then press Verify:'),
    h('pre', {}, `${v.record.name}.  TXT  "${v.record.value}"`),
  );
}

/**
 * @param {ResourcePage['dns']} dns
 * @returns {Node}
 */
function dnsHelp(dns) {
  if (!dns) return document.createDocumentFragment();
  const targets = [dns.host, ...dns.targets].join(' or ');
  return h(
    'div',
    { class: 'notice' },
    h('p', {}, 'At your DNS provider, point the domain at this service before adding it:'),
    h('pre', {}, `your.domain.example.  CNAME  ${dns.host}.`),
    h('p', {}, `(or an A/AAAA record with the addresses of ${targets})`),
  );
}

/**
 * @param {NonNullable<ResourceView['members']>} members
 * @param {Item} item
 */
async function showMembers(members, item) {
  const path = `${withId(members.path, item.id)}?limit=100`;
  const body = /** @type {ItemList} */ (await api('GET', path));
  const rows = body.data[members.key] || [];
  openDialog(
    `${item.name || item.id}: ${members.label.toLowerCase()}`,
    rows.length
      ? table(
          members.columns.map((c) => c.label),
          rows,
          (row) => members.columns.map((c) => cell(c, row)),
        )
      : h('p', {}, 'Nothing here yet.'),
  );
}

/**
 * @param {HTMLElement} root
 * @param {ResourcePage} page
 */
export function resourceView(root, { resource, dns }) {
  const results = h('div', { 'aria-live': 'polite' });
  const message = h('div', {});
  let page = 1;

  /**
   * @param {import('../types').FormSpec} update
   * @param {Item} item
   */
  function edit(update, item) {
    const dialog = openDialog(
      `Edit ${resource.singular}`,
      resourceForm({
        fields: update.fields,
        values: item,
        method: 'PUT',
        path: withId(update.path, item.id),
        check: update.check,
        submitLabel: 'Save changes',
        onDone: () => {
          dialog.close();
          message.replaceChildren(notice(`The ${resource.singular} has been saved.`));
          load();
        },
      }),
    );
  }
  /** @param {import('../types').FormSpec} spec */
  function create(spec) {
    const dialog = openDialog(
      `New ${resource.singular}`,
      resourceForm({
        fields: spec.fields,
        method: 'POST',
        path: spec.path,
        check: spec.check,
        submitLabel: `Create ${resource.singular}`,
        onDone: () => {
          dialog.close();
          message.replaceChildren(notice(`The ${resource.singular} has been created.`));
          page = 1;
          load();
        },
      }),
    );
  }
  /**
   * @param {{ path: string }} removal
   * @param {Item} item
   */
  async function remove(removal, item) {
    if (!confirm(`Delete this ${resource.singular}?`)) return;
    try {
      await api('DELETE', withId(removal.path, item.id));
      message.replaceChildren(notice(`The ${resource.singular} has been deleted.`));
      load();
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  /**
   * @param {{ label: string, path: string }} action
   * @param {Item} item
   */
  async function act(action, item) {
    try {
      const body = /** @type {{ message?: string }} */ (
        await api('POST', withId(action.path, item.id), {})
      );
      message.replaceChildren(notice(body.message || 'Done.'));
      load();
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  async function load() {
    try {
      const path = `${resource.list.path}?limit=20&page=${page}`;
      const body = /** @type {ItemList} */ (await api('GET', path));
      const items = body.data[resource.list.key] || [];
      if (!items.length) {
        results.replaceChildren(notice(`No ${resource.title.toLowerCase()} yet.`));
        return;
      }
      /** @param {Item} item */
      const label = (item) => String(item.name || item.domain || `#${item.id}`);
      const { members, update, remove: removal, action } = resource;
      results.replaceChildren(
        table([...resource.columns.map((c) => c.label), 'Actions'], items, (item) => [
          ...resource.columns.map((c) => cell(c, item)),
          h(
            'div',
            { class: 'actions' },
            members
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () =>
                      showMembers(members, item).catch((/** @type {unknown} */ e) =>
                        message.replaceChildren(errorBox(e)),
                      ),
                  },
                  members.label,
                )
              : null,
            action &&
              item.verification &&
              /** @type {{ status?: string }} */ (item.verification).status !== 'verified'
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () => act(action, item),
                    'aria-label': `${action.label} ${label(item)}`,
                  },
                  action.label,
                )
              : null,
            update
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () => edit(update, item),
                    'aria-label': `Edit ${label(item)}`,
                  },
                  'Edit',
                )
              : null,
            removal
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    onclick: () => remove(removal, item),
                    'aria-label': `Delete ${label(item)}`,
                  },
                  'Delete',
                )
              : null,
          ),
        ]),
        pager(body.data, (p) => {
          page = p;
          load();
        }),
      );
    } catch (error) {
      results.replaceChildren(errorBox(error));
    }
  }

  const creation = resource.create;
  root.replaceChildren(
    h('p', {}, resource.intro),
    dnsHelp(dns),
    creation
      ? h(
          'p',
          {},
          h(
            'button',
            { type: 'button', class: 'primary', onclick: () => create(creation) },
            `New ${resource.singular}`,
          ),
        )
      : h(
          'p',
          { class: 'muted' },
          `The API does not offer creating ${resource.title.toLowerCase()} yet.`,
        ),
    message,
    results,
  );
  load();
}
