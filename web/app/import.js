// The Import page: start an import from another service or a file, follow it, read its report.
import {
  ApiError,
  actingAccount,
  api,
  csrf,
  errorBox,
  h,
  messageOf,
  openDialog,
  pager,
  setTitle,
  table,
} from './core.js';
/** @typedef {import('../types').ImportPage} ImportPage */
/** @typedef {import('../types').ImportReport} ImportReport */
/** @typedef {import('../types').ListAnswer<ImportReport>} ImportList */

const HISTORY_PAGE = 10;

/** Sources read from a file; the others from an instance's API. */
const FILE_SOURCES = ['csv', 'linkqr'];
const LABELS = /** @type {Record<string, string>} */ ({
  csv: 'CSV file (YOURLS, Bitly, Rebrandly, Shlink exports)',
  linkqr: 'linkqr export file',
  gempixel: 'GemPixel (or any GemPixel-API service)',
  shlink: 'Shlink',
  kutt: 'Kutt',
  bitly: 'Bitly',
});

/**
 * POSTs the form as multipart (it carries a file) through the dashboard's API.
 * @param {FormData} form
 * @returns {Promise<{ id: number }>}
 */
async function upload(form) {
  const res = await fetch('/app/api/import', {
    method: 'POST',
    headers: {
      'x-csrf-token': csrf,
      accept: 'application/json',
      ...(actingAccount ? { 'linkqr-account': actingAccount } : {}),
    },
    body: form,
    credentials: 'same-origin',
  });
  const json = await res.json().catch(() => ({ error: 1 }));
  if (!res.ok || json.error === 1)
    throw new ApiError(json.message || `Request failed (${res.status})`, res.status, json.field);
  return json;
}

/** @param {ImportReport} r */
function progressOf(r) {
  const done = r.imported + r.skipped + r.failed;
  const max = Math.max(r.total, done, 1);
  const finished = r.status === 'done' || r.status === 'failed';
  return h(
    'div',
    { class: 'import-progress' },
    h('progress', {
      max,
      value: finished ? max : done,
      'aria-label': `Import ${r.id}: ${done} of ${r.total} read`,
    }),
    h(
      'p',
      { role: 'status' },
      `${r.status}: ${r.imported} imported, ${r.skipped} skipped, ${r.failed} failed of ${r.total}`,
    ),
    r.errors.length
      ? table(['Item', 'What happened'], r.errors, (e) => [e.item || '—', e.message])
      : null,
    webhooksOf(r),
  );
}

/**
 * The webhooks an import created, with the new signing secrets this one answer carries: the
 * server shows them once, so the page says to copy them now.
 * @param {ImportReport} r
 */
function webhooksOf(r) {
  const hooks = r.webhooks || [];
  if (!hooks.length) return null;
  const shown = hooks.some((w) => w.secret);
  return h(
    'div',
    { class: 'import-webhooks' },
    h(
      'p',
      {},
      shown
        ? 'Webhooks were created with new signing secrets. Copy them now: they are shown only this once.'
        : 'Webhooks were created with new signing secrets, shown once when the import finished. If one was missed, delete that webhook and add it again.',
    ),
    table(['Webhook', 'Now', 'Address', 'Signing secret'], hooks, (w) => [
      w.item,
      `webhook ${w.id}`,
      w.url,
      w.secret ? h('code', {}, w.secret) : 'shown once, no longer',
    ]),
  );
}

/**
 * Opens one import's whole report (errors, webhooks) in a dialog, read afresh.
 * @param {ImportReport} r
 */
async function openReport(r) {
  const body = h('div', { class: 'import-report' }, h('p', { role: 'status' }, 'Loading…'));
  openDialog(`Import ${r.id} from ${r.source}`, body);
  try {
    const answer = /** @type {{ data: ImportReport }} */ (
      /** @type {unknown} */ (await api('GET', `/import/${r.id}`))
    );
    body.replaceChildren(progressOf(answer.data));
  } catch (error) {
    body.replaceChildren(errorBox(error));
  }
}

/**
 * Opens an import's report; its name starts with what it shows (the errors, if any) and says
 * which import.
 * @param {ImportReport} r
 */
function reportButton(r) {
  const n = r.errors.length;
  const text = n ? `${n} error${n === 1 ? '' : 's'}` : 'Report';
  return h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: () => openReport(r),
      'aria-label': `${text}: report of import ${r.id}`,
    },
    text,
  );
}

/**
 * The caller's imports, newest first, a page at a time, each with its status, counts and a
 * way to its errors.
 * @param {HTMLElement} section
 */
function importHistory(section) {
  let page = 1;
  const load = async () => {
    try {
      const answer = /** @type {ImportList} */ (
        /** @type {unknown} */ (await api('GET', `/imports?limit=${HISTORY_PAGE}&page=${page}`))
      );
      const imports = answer.data.imports || [];
      if (!imports.length) {
        section.replaceChildren(h('h2', {}, 'Past imports'), h('p', {}, 'No imports yet.'));
        return;
      }
      section.replaceChildren(
        h('h2', {}, 'Past imports'),
        table(
          ['Import', 'From', 'Status', 'Imported', 'Skipped', 'Failed', 'Of', 'Started', 'Report'],
          imports,
          (r) => [
            String(r.id),
            LABELS[r.source] || r.source,
            r.status,
            String(r.imported),
            String(r.skipped),
            String(r.failed),
            String(r.total),
            r.started || '—',
            reportButton(r),
          ],
        ),
        pager(answer.data, (p) => {
          page = p;
          load();
        }),
      );
    } catch (error) {
      section.replaceChildren(h('h2', {}, 'Past imports'), errorBox(error));
    }
  };
  return load;
}

/** @param {HTMLElement} root @param {ImportPage} data */
export function importView(root, data) {
  setTitle('Import');
  const report = h('section', { 'aria-live': 'polite', class: 'import-report' });
  const source = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'import-source', name: 'source' },
      data.sources.map((s) => h('option', { value: s }, LABELS[s] || s)),
    )
  );
  const fileRow = h(
    'p',
    {},
    h('label', { for: 'import-file' }, 'File'),
    ' ',
    h('input', { id: 'import-file', name: 'file', type: 'file', accept: '.csv,.jsonl,.txt' }),
  );
  const urlInput = h('input', {
    id: 'import-url',
    name: 'url',
    type: 'url',
    placeholder: 'https://',
  });
  const urlRow = h(
    'p',
    {},
    h('label', { for: 'import-url' }, 'Address of the service'),
    ' ',
    urlInput,
  );
  const keyRow = h(
    'p',
    {},
    h('label', { for: 'import-key' }, 'API key (used for this import only, never stored)'),
    ' ',
    h('input', { id: 'import-key', name: 'key', type: 'password', autocomplete: 'off' }),
  );
  const conflict = h(
    'p',
    {},
    h('label', { for: 'import-conflict' }, 'When an alias is taken'),
    ' ',
    h(
      'select',
      { id: 'import-conflict', name: 'onConflict' },
      h('option', { value: 'skip' }, 'skip the link and report it'),
      h('option', { value: 'rename' }, 'import it under a fresh alias'),
    ),
  );
  const sync = () => {
    const file = FILE_SOURCES.includes(source.value);
    fileRow.hidden = !file;
    keyRow.hidden = source.value === 'csv';
    urlRow.hidden = source.value === 'csv';
    urlInput.setAttribute('placeholder', data.defaults[source.value] || 'https://');
  };
  source.addEventListener('change', sync);
  const problems = h('div', {});
  const form = /** @type {HTMLFormElement} */ (
    h(
      'form',
      { class: 'import-form' },
      h('p', {}, h('label', { for: 'import-source' }, 'Bring links from'), ' ', source),
      fileRow,
      urlRow,
      keyRow,
      conflict,
      problems,
      h('button', { type: 'submit' }, 'Start import'),
    )
  );
  /** @param {number} id */
  const follow = async (id) => {
    for (;;) {
      const answer = /** @type {{ data: ImportReport }} */ (
        /** @type {unknown} */ (await api('GET', `/import/${id}`))
      );
      report.replaceChildren(progressOf(answer.data));
      if (answer.data.status === 'done' || answer.data.status === 'failed') return loadHistory();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problems.replaceChildren();
    const fields = new FormData(form);
    for (const [name, value] of [...fields]) {
      if (value === '' || (value instanceof File && !value.name)) fields.delete(name);
    }
    try {
      const started = fields.has('file')
        ? await upload(fields)
        : /** @type {{ id: number }} */ (
            /** @type {unknown} */ (await api('POST', '/import', Object.fromEntries(fields)))
          );
      report.replaceChildren(h('p', { role: 'status' }, `Import ${started.id} queued…`));
      loadHistory();
      await follow(started.id);
    } catch (error) {
      problems.replaceChildren(errorBox(error));
      if (!(error instanceof ApiError)) report.replaceChildren(h('p', {}, messageOf(error)));
    }
  });
  sync();
  const history = h('section', { class: 'import-history', 'aria-label': 'Past imports' });
  const loadHistory = importHistory(history);
  loadHistory();
  root.replaceChildren(
    h(
      'p',
      {},
      'Bring your short links over. Aliases are kept; running the same import again brings only what is new.',
    ),
    form,
    report,
    history,
  );
}
