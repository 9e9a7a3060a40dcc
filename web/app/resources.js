// Campaigns, channels, domains, pixels, splash pages and overlays: list, create, edit, delete.
import { api, errorBox, h, notice, openDialog, pager, table, withId } from './core.js';
import { resourceForm } from './forms.js';

function cell(column, item) {
  const value = item[column.name];
  if (column.kind === 'bool') return value ? 'yes' : 'no';
  if (value === null || value === undefined || value === false || value === '') return '—';
  if (column.kind === 'link' && typeof value === 'string')
    return h('a', { href: value, class: 'url' }, value);
  if (column.kind === 'code') return h('code', { class: 'url' }, String(value));
  return h('span', { class: 'url' }, String(value));
}

function dnsHelp(dns) {
  if (!dns) return null;
  const targets = [dns.host, ...dns.targets].join(' or ');
  return h(
    'div',
    { class: 'notice' },
    h('p', {}, 'At your DNS provider, point the domain at this service before adding it:'),
    h('pre', {}, `your.domain.example.  CNAME  ${dns.host}.`),
    h('p', {}, `(or an A/AAAA record with the addresses of ${targets})`),
  );
}

async function showMembers(resource, item) {
  const body = await api('GET', `${withId(resource.members.path, item.id)}?limit=100`);
  const rows = body.data[resource.members.key] || [];
  openDialog(
    `${item.name || item.id}: ${resource.members.label.toLowerCase()}`,
    rows.length
      ? table(
          resource.members.columns.map((c) => c.label),
          rows,
          (row) => resource.members.columns.map((c) => cell(c, row)),
        )
      : h('p', {}, 'Nothing here yet.'),
  );
}

export function resourceView(root, { resource, dns }) {
  const results = h('div', { 'aria-live': 'polite' });
  const message = h('div', {});
  let page = 1;

  function edit(item) {
    const dialog = openDialog(
      `Edit ${resource.singular}`,
      resourceForm({
        fields: resource.update.fields,
        values: item,
        method: 'PUT',
        path: withId(resource.update.path, item.id),
        submitLabel: 'Save changes',
        onDone: () => {
          dialog.close();
          message.replaceChildren(notice(`The ${resource.singular} has been saved.`));
          load();
        },
      }),
    );
  }
  function create() {
    const dialog = openDialog(
      `New ${resource.singular}`,
      resourceForm({
        fields: resource.create.fields,
        method: 'POST',
        path: resource.create.path,
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
  async function remove(item) {
    if (!confirm(`Delete this ${resource.singular}?`)) return;
    try {
      await api('DELETE', withId(resource.remove.path, item.id));
      message.replaceChildren(notice(`The ${resource.singular} has been deleted.`));
      load();
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  async function load() {
    try {
      const body = await api('GET', `${resource.list.path}?limit=20&page=${page}`);
      const items = body.data[resource.list.key] || [];
      if (!items.length) {
        results.replaceChildren(notice(`No ${resource.title.toLowerCase()} yet.`));
        return;
      }
      const label = (item) => item.name || item.domain || `#${item.id}`;
      results.replaceChildren(
        table([...resource.columns.map((c) => c.label), 'Actions'], items, (item) => [
          ...resource.columns.map((c) => cell(c, item)),
          h(
            'div',
            { class: 'actions' },
            resource.members
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () =>
                      showMembers(resource, item).catch((e) =>
                        message.replaceChildren(errorBox(e)),
                      ),
                  },
                  resource.members.label,
                )
              : null,
            resource.update
              ? h(
                  'button',
                  {
                    type: 'button',
                    onclick: () => edit(item),
                    'aria-label': `Edit ${label(item)}`,
                  },
                  'Edit',
                )
              : null,
            resource.remove
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    onclick: () => remove(item),
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

  root.replaceChildren(
    h('p', {}, resource.intro),
    dnsHelp(dns),
    resource.create
      ? h(
          'p',
          {},
          h(
            'button',
            { type: 'button', class: 'primary', onclick: create },
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
