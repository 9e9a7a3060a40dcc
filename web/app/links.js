// Links: the searchable list, the create form and a link's own page (stats, edit, delete).
import { api, copyText, errorBox, h, notice, pager, setTitle, table, withId } from './core.js';
import { resourceForm } from './forms.js';
import { behaviourFacts } from './link-facts.js';
import { statsPanel } from './stats.js';
/** @typedef {import('../types').LinkItem} LinkItem */
/** @typedef {import('../types').LinkDetails} LinkDetails */
/** @typedef {import('../types').LinkForms} LinkForms */
/** @typedef {import('../types').ListAnswer<LinkItem>} LinkList */
/** @typedef {import('../types').DetailsAnswer<LinkDetails>} LinkAnswer */

/**
 * A QR code pointing at the short URL (so its scans count as the link's clicks too).
 * @param {LinkItem} link
 * @param {Event} event
 */
async function makeQr(link, event) {
  const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
  button.disabled = true;
  try {
    const body = await api('POST', '/qr/add', {
      type: 'link',
      data: link.shorturl,
      name: link.title || link.alias,
    });
    location.assign(`/app/qr/${body.id}`);
  } catch (error) {
    button.disabled = false;
    button.after(errorBox(error));
  }
}

/**
 * @param {LinkItem} link
 * @param {() => void} after
 */
async function remove(link, after) {
  if (!confirm(`Delete ${link.shorturl}? Its statistics go too, and the alias is never reused.`))
    return;
  await api('DELETE', `/url/${link.id}/delete`);
  after();
}

/** @param {HTMLElement} root */
export function linksView(root) {
  const params = new URLSearchParams(location.search);
  const state = {
    q: params.get('q') || '',
    sort: params.get('sort') || 'date',
    page: Number(params.get('page')) || 1,
  };
  const results = h('div', { 'aria-live': 'polite' });
  const search = h('input', {
    id: 'link-search',
    type: 'search',
    value: state.q,
    placeholder: 'alias, URL or title',
  });
  const sort = h(
    'select',
    { id: 'link-sort' },
    h('option', { value: 'date', selected: state.sort === 'date' }, 'Newest first'),
    h('option', { value: 'clicks', selected: state.sort === 'clicks' }, 'Most clicked first'),
  );
  const form = h(
    'form',
    { class: 'toolbar', role: 'search' },
    h('label', { for: 'link-search' }, 'Search links'),
    search,
    h('label', { for: 'link-sort' }, 'Sort'),
    sort,
    h('button', { type: 'submit' }, 'Search'),
    h('a', { class: 'button primary', href: '/app/links/new' }, 'New link'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    state.q = search.value.trim();
    state.page = 1;
    load();
  });
  sort.addEventListener('change', () => {
    state.sort = sort.value;
    state.page = 1;
    load();
  });

  async function load() {
    const query = new URLSearchParams({ page: String(state.page), limit: '20', sort: state.sort });
    if (state.q) query.set('q', state.q);
    history.replaceState(null, '', `?${query}`);
    try {
      const body = /** @type {LinkList} */ (await api('GET', `/dashboard/links?${query}`));
      const { urls } = body.data;
      if (!urls.length) {
        results.replaceChildren(
          notice(state.q ? 'No link matches.' : 'No links yet: create your first one.'),
        );
        return;
      }
      results.replaceChildren(
        table(['Short URL', 'Destination', 'Clicks', 'Created', 'Actions'], urls, (link) => [
          h('a', { href: `/app/links/${link.id}` }, link.shorturl.replace(/^https?:\/\//, '')),
          h(
            'span',
            { class: 'url' },
            link.title ? `${link.title} · ` : '',
            link.longurl,
            link.health?.status === 'broken'
              ? [' ', h('span', { class: 'badge health-broken' }, 'Broken')]
              : null,
          ),
          String(link.clicks),
          link.date,
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                onclick: (/** @type {Event} */ e) => copyText(link.shorturl, e.currentTarget),
                'aria-label': `Copy ${link.shorturl}`,
              },
              'Copy',
            ),
            h(
              'button',
              {
                type: 'button',
                onclick: (/** @type {Event} */ e) => makeQr(link, e),
                'aria-label': `Make a QR code for ${link.shorturl}`,
              },
              'QR code',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: () => remove(link, load).catch((err) => results.prepend(errorBox(err))),
                'aria-label': `Delete ${link.shorturl}`,
              },
              'Delete',
            ),
          ),
        ]),
        pager(body.data, (page) => {
          state.page = page;
          load();
        }),
      );
    } catch (error) {
      results.replaceChildren(errorBox(error));
    }
  }
  root.replaceChildren(form, results);
  load();
}

/**
 * @param {HTMLElement} root
 * @param {LinkForms} data
 */
export function linkNewView(root, data) {
  root.replaceChildren(
    resourceForm({
      fields: data.create.fields,
      method: 'POST',
      path: data.create.path,
      check: data.create.check,
      submitLabel: 'Create link',
      onDone: (answer) => location.assign(`/app/links/${answer.id}`),
    }),
  );
}

/**
 * @param {HTMLElement} root
 * @param {LinkForms & { id: number }} data
 */
export async function linkView(root, data) {
  /** @type {LinkAnswer} */
  let body;
  try {
    body = /** @type {LinkAnswer} */ (await api('GET', `/url/${data.id}`));
  } catch (error) {
    root.replaceChildren(errorBox(error));
    return;
  }
  const link = body.details;
  setTitle(link.title || link.shorturl);
  const saved = h('div', {});
  root.replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Short URL'),
      h(
        'dd',
        {},
        h('a', { href: link.shorturl, 'data-testid': 'short-url' }, link.shorturl),
        ' ',
        h(
          'button',
          {
            type: 'button',
            onclick: (/** @type {Event} */ e) => copyText(link.shorturl, e.currentTarget),
          },
          'Copy',
        ),
      ),
      h('dt', {}, 'Destination'),
      h('dd', { class: 'url' }, link.longurl),
      h('dt', {}, 'Created'),
      h('dd', {}, link.date),
      h('dt', {}, 'Expires'),
      h('dd', {}, link.expiry || 'never'),
      h('dt', {}, 'Password'),
      h('dd', {}, link.password ? 'yes' : 'no'),
      behaviourFacts(link),
    ),
    h(
      'p',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', onclick: (/** @type {Event} */ e) => makeQr(link, e) },
        'Make a QR code',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () =>
            remove(link, () => location.assign('/app/links')).catch((err) =>
              saved.replaceChildren(errorBox(err)),
            ),
        },
        'Delete link',
      ),
    ),
    statsPanel(`/url/${link.id}`, body.data),
    h(
      'section',
      { 'aria-labelledby': 'edit-h' },
      h('h2', { id: 'edit-h' }, 'Edit'),
      saved,
      resourceForm({
        fields: data.update.fields,
        // The form's `custom` is the link's alias, under the name the API takes it by.
        values: { ...link, url: link.longurl, custom: link.alias },
        method: 'PUT',
        path: withId(data.update.path, link.id),
        check: data.update.check,
        submitLabel: 'Save changes',
        onDone: () => saved.replaceChildren(notice('Saved.')),
      }),
    ),
  );
}
