// QR codes: the gallery with render status, the create/edit form with a live preview, downloads.
import { api, errorBox, fieldOf, h, messageOf, nextId, notice, pager, setTitle } from './core.js';
import { showError } from './forms.js';
import { printPanel } from './qr-print.js';
import { styleControls, toHex } from './qr-style.js';
import { statsPanel } from './stats.js';
/** @typedef {import('../types').FormRow} FormRow */
/** @typedef {import('../types').QrConfig} QrConfig */
/** @typedef {import('../types').QrRecord} QrRecord */
/** @typedef {import('../types').QrItem} QrItem */
/** @typedef {import('../types').QrDetails} QrDetails */
/** @typedef {import('../types').Answer} Answer */
/** @typedef {import('../types').DetailsAnswer<QrDetails>} QrAnswer */
/** @typedef {import('../types').ListAnswer<QrItem>} QrList */

/** The inputs of each type's `data`: [name, label, input type]. */
/** @type {Record<string, Array<[string, string, string]>>} */
const DATA_FIELDS = {
  text: [['data', 'Text', 'textarea']],
  link: [['data', 'Destination URL', 'url']],
  phone: [['data', 'Phone number', 'tel']],
  email: [
    ['data.email', 'Email address', 'email'],
    ['data.subject', 'Subject', 'text'],
    ['data.body', 'Message', 'textarea'],
  ],
  sms: [
    ['data.phone', 'Phone number', 'tel'],
    ['data.message', 'Message', 'textarea'],
  ],
  wifi: [
    ['data.ssid', 'Network name (SSID)', 'text'],
    ['data.encryption', 'Encryption', 'encryption'],
    ['data.password', 'Network password', 'text'],
    ['data.hidden', 'Hidden network', 'checkbox'],
  ],
  vcard: [
    ['data.firstname', 'First name', 'text'],
    ['data.lastname', 'Last name', 'text'],
    ['data.org', 'Organisation', 'text'],
    ['data.title', 'Job title', 'text'],
    ['data.phone', 'Phone', 'tel'],
    ['data.email', 'Email', 'email'],
    ['data.url', 'Website', 'url'],
    ['data.address', 'Address', 'text'],
  ],
};

/** @param {string} hex */
const toRgb = (hex) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(',')})`;

/** @param {string} hex */
function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * One labelled input with its error line.
 * @param {string} name
 * @param {string} label
 * @param {string} kind
 * @param {unknown} value
 * @param {string[]} [options]
 * @returns {FormRow}
 */
function field(name, label, kind, value, options) {
  const id = nextId(`q-${name.replace(/\./g, '-')}`);
  const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
  const text = value === undefined || value === null ? '' : String(value);
  /** @type {FormRow['input']} */
  let input;
  if (kind === 'textarea') input = h('textarea', { id, name, rows: 3 }, text);
  else if (kind === 'checkbox')
    input = h('input', { id, name, type: 'checkbox', checked: Boolean(value) });
  else if (kind === 'select' || kind === 'encryption') {
    input = h(
      'select',
      { id, name },
      (options || []).map((o) => h('option', { value: o, selected: o === text }, o)),
    );
  } else input = h('input', { id, name, type: kind, value: text });
  input.setAttribute('aria-describedby', `${id}-error`);
  const labelEl = h('label', { for: id }, label);
  const wrapper =
    kind === 'checkbox'
      ? h('div', { class: 'field check' }, input, labelEl, error)
      : h('div', { class: 'field' }, labelEl, input, error);
  return { field: { name }, input, error, wrapper };
}

/**
 * The create/edit form: type-specific data, colours with the contrast rule, logo, size, format.
 * @param {QrConfig} config
 * @param {QrRecord} record
 * @param {(answer: Answer) => void} onDone
 * @param {HTMLElement} [aside] shown under the preview (a saved code's print check)
 */
function qrForm(config, record, onDone, aside) {
  const editing = Boolean(record.id);
  const status = h('div', { class: 'form-status' });
  const preview = h(
    'div',
    { class: 'preview', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'The preview appears here.'),
  );
  const contrast = h('p', { class: 'help', id: 'contrast-help' });
  const dataBox = h('fieldset', {}, h('legend', {}, 'Content'));
  /** @type {FormRow[]} */
  let dataRows = [];

  const type = field('type', 'Type', 'select', record.type || 'link', config.types);
  const name = field('name', 'Name (for you)', 'text', record.name);
  const fg = field(
    'foreground',
    'Foreground colour',
    'color',
    toHex(record.foreground) || '#000000',
  );
  const bg = field(
    'background',
    'Background colour',
    'color',
    toHex(record.background) || '#ffffff',
  );
  const logoUrl = field(
    'logo',
    'Logo: an image URL, or upload one below',
    'text',
    record.logo || '',
  );
  const logoFile = h('input', { id: 'logo-file', type: 'file', accept: 'image/png,image/jpeg' });
  const size = field(
    'size',
    `Size in pixels (${config.size.min}-${config.size.max})`,
    'number',
    record.size || config.size.default,
  );
  const format = field(
    'format',
    'Default format',
    'select',
    record.format || 'png',
    config.formats,
  );
  const style = styleControls(config.style, record.style, field);
  const rows = () => [type, name, ...dataRows, fg, bg, logoUrl, size, format, ...style.rows];

  /**
   * @param {string} kind
   * @param {unknown} data
   */
  function renderData(kind, data) {
    /** @type {Record<string, unknown>} */
    const values =
      typeof data === 'object' && data !== null
        ? /** @type {Record<string, unknown>} */ (data)
        : { '': data };
    dataRows = (DATA_FIELDS[kind] || []).map(([n, label, inputKind]) => {
      const key = n === 'data' ? '' : n.slice(5);
      const value = kind === 'wifi' && key === 'encryption' ? values[key] || 'WPA' : values[key];
      return field(n, label, inputKind, value, config.encryptions);
    });
    dataBox.replaceChildren(h('legend', {}, 'Content'), ...dataRows.map((r) => r.wrapper));
  }
  renderData(type.input.value, record.data);
  type.input.addEventListener('change', () => {
    renderData(type.input.value, undefined);
    schedule();
  });

  /** @returns {unknown} */
  function collectData() {
    const [only] = dataRows;
    if (dataRows.length === 1 && only && only.field.name === 'data') return only.input.value.trim();
    /** @type {Record<string, unknown>} */
    const data = {};
    for (const row of dataRows) {
      const key = row.field.name.slice(5);
      const { input } = row;
      const value =
        input instanceof HTMLInputElement && input.type === 'checkbox'
          ? input.checked
          : input.value.trim();
      if (value !== '' && value !== false) data[key] = value;
    }
    return data;
  }
  function collect() {
    /** @type {Record<string, unknown>} */
    const body = {
      type: type.input.value,
      data: collectData(),
      foreground: toRgb(fg.input.value),
      background: toRgb(bg.input.value),
      size: Number(size.input.value),
      format: format.input.value,
      name: name.input.value.trim(),
      style: style.collect(),
    };
    const logo = logoUrl.input.value.trim();
    if (logo) body.logo = logo;
    else if (editing && record.logo) body.logo = null;
    return body;
  }

  function explainContrast() {
    const f = luminance(fg.input.value);
    const b = luminance(bg.input.value);
    const ratio = (Math.max(f, b) + 0.05) / (Math.min(f, b) + 0.05);
    const ok = ratio >= config.minContrast && f <= b;
    contrast.textContent = `Contrast ${ratio.toFixed(2)}:1. Scanners need at least ${config.minContrast}:1 and a foreground darker than the background. ${ok ? 'These colours scan.' : 'These colours will be refused.'}`;
    contrast.className = ok ? 'help' : 'help error';
  }

  function clearErrors() {
    for (const row of rows()) {
      row.error.hidden = true;
      row.input.removeAttribute('aria-invalid');
    }
  }

  /**
   * The preview's refusal beside the control it names (without taking the focus while typing).
   * @param {unknown} error
   */
  function explainPreview(error) {
    const err = /** @type {{ message: string, field?: string }} */ (
      error instanceof Error ? error : { message: String(error) }
    );
    const all = rows();
    const row = all.find(
      (r) =>
        r.field.name ===
        fieldOf(
          err,
          all.map((r) => r.field.name),
        ),
    );
    if (!row) return;
    row.error.textContent = err.message;
    row.error.hidden = false;
    row.input.setAttribute('aria-invalid', 'true');
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  function schedule() {
    explainContrast();
    clearTimeout(timer);
    timer = setTimeout(async () => {
      try {
        const answer = await api('POST', '/dashboard/qr-preview', collect());
        const body = /** @type {Answer & { svg: string }} */ (answer);
        const doc = new DOMParser().parseFromString(body.svg, 'image/svg+xml');
        const image = document.importNode(doc.documentElement, true);
        image.setAttribute('role', 'img');
        image.setAttribute('aria-label', 'Preview of the QR code');
        preview.replaceChildren(image);
        clearErrors();
      } catch (error) {
        preview.replaceChildren(notice(`No preview: ${messageOf(error)}`, 'muted'));
        clearErrors();
        explainPreview(error);
      }
    }, 300);
  }

  logoFile.addEventListener('change', async () => {
    const file = logoFile.files && logoFile.files[0];
    if (!file) return;
    try {
      const answer = await api('POST', '/dashboard/logo', file, file.type || 'image/png');
      const body = /** @type {Answer & { logo: string }} */ (answer);
      logoUrl.input.value = body.logo;
      status.replaceChildren(notice(`Logo uploaded as ${body.logo}.`));
      schedule();
    } catch (error) {
      status.replaceChildren(notice(messageOf(error), 'error'));
    }
  });

  const form = h(
    'form',
    { class: 'stack qr-form', novalidate: true },
    status,
    type.wrapper,
    name.wrapper,
    dataBox,
    h('fieldset', {}, h('legend', {}, 'Colours'), fg.wrapper, bg.wrapper, contrast),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Logo'),
      logoUrl.wrapper,
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'logo-file' }, 'Upload a PNG or JPEG logo'),
        logoFile,
      ),
    ),
    h('fieldset', {}, h('legend', {}, 'Style'), style.element),
    size.wrapper,
    format.wrapper,
    h('button', { type: 'submit' }, editing ? 'Save changes' : 'Create QR code'),
  );
  form.addEventListener('input', schedule);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren();
    clearErrors();
    try {
      const answer = editing
        ? await api('PUT', `/qr/${record.id}/update`, collect())
        : await api('POST', '/qr/add', collect());
      onDone(answer);
    } catch (error) {
      showError(rows(), status, error);
    }
  });
  schedule();
  return h(
    'div',
    { class: 'qr-editor' },
    form,
    h('div', { class: 'preview-box' }, h('h2', {}, 'Preview'), preview, aside),
  );
}

/** @param {QrDetails} details */
function statusBadge(details) {
  if (details.status === 'failed')
    return h('span', { class: 'badge failed' }, `Failed: ${details.reason}`);
  return h(
    'span',
    { class: `badge ${details.status}` },
    details.status === 'ready' ? 'Ready' : 'Rendering…',
  );
}

/**
 * Polls a code until its image is rendered, then shows it.
 * @param {number} id
 * @param {HTMLImageElement} img
 * @param {HTMLElement} badge
 */
async function watch(id, img, badge) {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const { details } = /** @type {QrAnswer} */ (await api('GET', `/qr/${id}`));
    badge.replaceChildren(statusBadge(details));
    if (details.status === 'ready') {
      img.src = `${new URL(details.link).pathname}.png?v=${Date.now()}`;
      img.hidden = false;
      return details;
    }
    if (details.status === 'failed') return details;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return undefined;
}

/** @param {HTMLElement} root */
export function qrGalleryView(root) {
  const grid = h('div', {});
  let page = 1;
  async function load() {
    try {
      const body = /** @type {QrList} */ (await api('GET', `/qr?limit=24&page=${page}`));
      const qrs = body.data.qrs || [];
      if (!qrs.length) {
        grid.replaceChildren(notice('No QR codes yet: create your first one.'));
        return;
      }
      grid.replaceChildren(
        h(
          'ul',
          { class: 'gallery' },
          qrs.map((qr) => {
            const img = h('img', {
              alt: `QR code ${qr.name || qr.id}`,
              width: 160,
              height: 160,
              hidden: true,
            });
            const badge = h('span', {}, h('span', { class: 'badge pending' }, 'Checking…'));
            watch(qr.id, img, badge).catch(() =>
              badge.replaceChildren(h('span', { class: 'badge failed' }, 'Unknown')),
            );
            return h(
              'li',
              { class: 'card' },
              h(
                'a',
                { href: `/app/qr/${qr.id}` },
                img,
                h('span', { class: 'card-title' }, qr.name || `QR code ${qr.id}`),
              ),
              badge,
              h('span', { class: 'muted' }, `${qr.scans} scans · ${qr.date}`),
            );
          }),
        ),
        pager(body.data, (p) => {
          page = p;
          load();
        }),
      );
    } catch (error) {
      grid.replaceChildren(errorBox(error));
    }
  }
  root.replaceChildren(
    h('p', {}, h('a', { class: 'button primary', href: '/app/qr/new' }, 'New QR code')),
    grid,
  );
  load();
}

/**
 * @param {HTMLElement} root
 * @param {QrConfig} config
 */
export function qrNewView(root, config) {
  root.replaceChildren(qrForm(config, {}, (answer) => location.assign(`/app/qr/${answer.id}`)));
}

/**
 * @param {HTMLElement} root
 * @param {QrConfig & { id: number }} config
 */
export async function qrView(root, config) {
  /** @type {QrAnswer} */
  let body;
  try {
    body = /** @type {QrAnswer} */ (await api('GET', `/qr/${config.id}`));
  } catch (error) {
    root.replaceChildren(errorBox(error));
    return;
  }
  const qr = body.details;
  if (qr.name) setTitle(qr.name);
  const path = new URL(qr.link).pathname;
  const img = h('img', {
    alt: `QR code ${qr.name || qr.id}`,
    width: 256,
    height: 256,
    hidden: true,
    'data-testid': 'qr-image',
  });
  const badge = h('p', {}, statusBadge(qr));
  const saved = h('div', {});
  const print = printPanel(qr.id);
  root.replaceChildren(
    h(
      'div',
      { class: 'qr-head' },
      img,
      h(
        'div',
        {},
        badge,
        h('p', {}, 'Image address: ', h('code', { class: 'url' }, qr.link)),
        h(
          'p',
          { class: 'actions' },
          h(
            'a',
            { class: 'button', href: `${path}.png`, download: `qr-${qr.id}.png` },
            'Download PNG',
          ),
          h(
            'a',
            { class: 'button', href: `${path}.svg`, download: `qr-${qr.id}.svg` },
            'Download SVG',
          ),
          // Print files, vector: drawn by the worker on the first download.
          h(
            'a',
            { class: 'button', href: `${path}.pdf`, download: `qr-${qr.id}.pdf` },
            'Download PDF',
          ),
          h(
            'a',
            { class: 'button', href: `${path}.eps`, download: `qr-${qr.id}.eps` },
            'Download EPS',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: async () => {
                if (!confirm('Delete this QR code? Printed copies stop working.')) return;
                try {
                  await api('DELETE', `/qr/${qr.id}/delete`);
                  location.assign('/app/qr');
                } catch (error) {
                  saved.replaceChildren(errorBox(error));
                }
              },
            },
            'Delete',
          ),
        ),
      ),
    ),
    statsPanel(`/qr/${qr.id}`, body.data, 'Scans'),
    h(
      'section',
      { 'aria-labelledby': 'edit-h' },
      h('h2', { id: 'edit-h' }, 'Edit'),
      saved,
      qrForm(
        config,
        { ...config.record, id: qr.id, name: qr.name },
        () => {
          saved.replaceChildren(notice('Saved: the image is being rendered again.'));
          img.hidden = true;
          watch(qr.id, img, badge);
          print.refresh();
        },
        print.element,
      ),
    ),
  );
  watch(qr.id, img, badge);
}
