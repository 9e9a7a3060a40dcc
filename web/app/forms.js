// Forms rendered from the field lists the server derives from the API's own validators.
import { api, choicesFrom, fieldOf, h, nextId, notice } from './core.js';
import { rowsEditor } from './rows.js';
import { rulesEditor } from './rules.js';
/** @typedef {import('../types').FormField} FormField */
/** @typedef {import('../types').OptionsSource} OptionsSource */
/** @typedef {import('../types').Answer} Answer */
/** @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} Input */
/** @typedef {import('./rows.js').RowsEditor} RowsEditor */
/** @typedef {{ field: { name: string }, input: Input, error: HTMLElement, editor?: RowsEditor }} ErrorRow */
/**
 * A field of a form: its input (or editor), where its error goes, and what it adds to the form
 * (`wrapper`; none for a field another field's editor shows).
 * @typedef {{
 *   field: FormField,
 *   input: Input,
 *   error: HTMLElement,
 *   wrapper: HTMLElement | null,
 *   remove: HTMLInputElement | null,
 *   editor: RowsEditor | undefined,
 * }} FormRow
 */

/** @param {number} n */
function pad(n) {
  return String(n).padStart(2, '0');
}

/**
 * `YYYY-MM-DD HH:MM:SS` (UTC, as the API writes dates) to a datetime-local value.
 * @param {unknown} value
 */
function toLocalInput(value) {
  if (!value) return '';
  const date = new Date(String(value).replace(' ', 'T') + (String(value).endsWith('Z') ? '' : 'Z'));
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * @param {HTMLSelectElement} select
 * @param {OptionsSource} source
 * @param {unknown} current
 */
async function loadOptions(select, source, current) {
  try {
    for (const { value, label } of await choicesFrom(source)) {
      const selected = Array.isArray(current)
        ? current.map(String).includes(value)
        : String(current ?? '') === value;
      select.append(h('option', { value, selected }, label));
    }
  } catch {
    select.append(h('option', { disabled: true }, 'Could not load the choices'));
  }
}

/**
 * @param {FormField} field
 * @param {string} id
 * @param {unknown} value
 * @param {string} describedBy
 * @returns {Input}
 */
function inputFor(field, id, value, describedBy) {
  const text = value === undefined || value === null ? '' : String(value);
  const common = {
    id,
    name: field.name,
    required: field.required,
    'aria-describedby': describedBy,
  };
  switch (field.kind) {
    case 'textarea':
      return h('textarea', { ...common, rows: 3 }, text);
    case 'checkbox':
      return h('input', { ...common, type: 'checkbox', checked: Boolean(value), required: false });
    case 'number':
      return h('input', { ...common, type: 'number', value: text });
    case 'datetime':
      return h('input', { ...common, type: 'datetime-local', value: toLocalInput(value) });
    case 'color':
      return h('input', { ...common, type: 'color', value: text || '#1a73e8' });
    case 'select':
    case 'multiselect': {
      const multiple = field.kind === 'multiselect';
      const select = h('select', { ...common, multiple });
      if (!multiple)
        select.append(h('option', { value: '' }, field.required ? 'Choose…' : '— none —'));
      for (const option of field.options || []) {
        select.append(
          h('option', { value: option.value, selected: text === option.value }, option.label),
        );
      }
      if (field.optionsFrom) loadOptions(select, field.optionsFrom, value);
      return select;
    }
    default:
      return h('input', {
        ...common,
        type: field.kind === 'url' ? 'url' : field.kind === 'password' ? 'password' : 'text',
        value: field.kind === 'password' ? '' : text,
        autocomplete: field.kind === 'password' ? 'new-password' : 'off',
      });
  }
}

/**
 * @param {FormField} field
 * @param {Input} input
 * @returns {unknown}
 */
function readInput(field, input) {
  switch (field.kind) {
    case 'checkbox':
      return /** @type {HTMLInputElement} */ (input).checked;
    case 'number':
      return input.value === '' ? undefined : Number(input.value);
    case 'multiselect': {
      const values = [.../** @type {HTMLSelectElement} */ (input).selectedOptions].map(
        (o) => o.value,
      );
      return values.map((v) => (/^\d+$/.test(v) ? Number(v) : v));
    }
    case 'datetime':
      return input.value ? new Date(input.value).toISOString() : undefined;
    case 'select':
      if (input.value === '') return undefined;
      return field.optionsFrom && /^\d+$/.test(input.value) ? Number(input.value) : input.value;
    default:
      return input.value.trim() === '' ? undefined : input.value.trim();
  }
}

/**
 * A form of `fields` that sends what changed to `path` and shows the API's error next to the
 * field it names. On create every filled field is sent; on edit only the changed ones, and an
 * emptied field the API can clear is sent as null. A list field is a row editor whose cells the
 * API checks as the person types (`check`: the form's `METHOD /path`).
 * @param {{
 *   fields: FormField[],
 *   values?: Record<string, unknown>,
 *   method: 'POST' | 'PUT',
 *   path: string,
 *   check?: string,
 *   submitLabel: string,
 *   onDone: (answer: Answer) => unknown,
 * }} options
 */
export function resourceForm({ fields, values = {}, method, path, check, submitLabel, onDone }) {
  const editing = method !== 'POST';
  const status = h('div', { class: 'form-status' });
  // A field another field's editor edits (GemPixel's maps, in the rules editor) has no input of
  // its own when that field is in the form.
  const owned = (/** @type {FormField} */ field) =>
    field.within !== undefined && fields.some((f) => f.name === field.within);
  /**
   * @param {FormField} field
   * @returns {FormRow[]}
   */
  function rowsOf(field) {
    const id = nextId(`f-${field.name}`);
    const helpId = field.help ? `${id}-help` : undefined;
    const errorId = `${id}-error`;
    const describedBy = [helpId, errorId].filter(Boolean).join(' ');
    const error = h('p', { class: 'error', id: errorId, hidden: true });
    const help = field.help ? h('p', { class: 'help', id: helpId }, field.help) : null;
    if (field.kind === 'rules') {
      const maps = fields.filter((f) => f.within === field.name);
      const editor = rulesEditor({
        field,
        value: values[field.name],
        maps: maps.map((map) => ({ field: map, value: values[map.name] })),
        describedBy,
        help,
        check: check ? (name, value) => checkField(check, name, value) : undefined,
      });
      const wrapper = h('div', { class: 'field' }, editor.element, error);
      const input = /** @type {Input} */ (editor.element.querySelector('input, select') || error);
      // One row a field it edits, so each is read, compared and answered for on its own.
      return [field, ...maps].map((f, i) => ({
        field: f,
        input,
        error,
        wrapper: i === 0 ? wrapper : null,
        remove: null,
        editor: editor.parts.get(f.name),
      }));
    }
    if (field.kind === 'rows') {
      const editor = rowsEditor({
        field,
        value: values[field.name],
        describedBy,
        check: check ? (value) => checkField(check, field.name, value) : undefined,
      });
      const wrapper = h('div', { class: 'field' }, editor.element, help, error);
      // The editor's own first cell stands for it where a single input would (focus, aria).
      const input = /** @type {Input} */ (editor.element.querySelector('input, select') || error);
      return [{ field, input, error, wrapper, remove: null, editor }];
    }
    const input = inputFor(field, id, values[field.name], describedBy);
    const label = h('label', { for: id }, field.label, field.required ? ' (required)' : '');
    // A secret is never shown again: a set one can be replaced, or removed with this box.
    const removable = editing && field.kind === 'password' && field.nullable && values[field.name];
    const remove = removable ? h('input', { type: 'checkbox', id: `${id}-remove` }) : null;
    const wrapper =
      field.kind === 'checkbox'
        ? h('div', { class: 'field check' }, input, label, error)
        : h(
            'div',
            { class: 'field' },
            label,
            input,
            help,
            remove
              ? h(
                  'div',
                  { class: 'field check' },
                  remove,
                  h('label', { for: `${id}-remove` }, `Remove the ${field.label.toLowerCase()}`),
                )
              : null,
            error,
          );
    return [{ field, input, error, wrapper, remove, editor: undefined }];
  }
  const rows = fields.filter((field) => !owned(field)).flatMap(rowsOf);
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    status,
    rows.map((r) => r.wrapper),
    h('button', { type: 'submit' }, submitLabel),
  );

  /** @param {(typeof rows)[number]} row */
  const read = (row) => (row.editor ? row.editor.read() : readInput(row.field, row.input));

  /** @type {Map<string, string | undefined>} */
  const initial = new Map();
  for (const row of rows) {
    try {
      initial.set(row.field.name, JSON.stringify(read(row)));
    } catch {
      initial.set(row.field.name, undefined);
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren();
    for (const row of rows) {
      row.error.hidden = true;
      row.input.removeAttribute('aria-invalid');
      row.editor?.showErrors([], false);
    }
    /** @type {Record<string, unknown>} */
    const body = {};
    try {
      for (const row of rows) {
        const { field, remove } = row;
        if (remove?.checked) {
          body[field.name] = null;
          continue;
        }
        const value = read(row);
        if (editing) {
          // A field the update requires is always sent; the others only when they changed.
          if (!field.required && JSON.stringify(value) === initial.get(field.name)) continue;
          if (value === undefined) {
            if (field.nullable) body[field.name] = null;
            continue;
          }
        }
        if (value !== undefined) body[field.name] = value;
      }
      const answer = await api(method, path, body);
      await onDone(answer);
    } catch (error) {
      showError(rows, status, error);
    }
  });
  return form;
}

/**
 * The API's messages for one field's value, each with the cell it is about.
 * @param {string} form
 * @param {string} field
 * @param {unknown} value
 * @returns {Promise<import('../types').CellError[]>}
 */
async function checkField(form, field, value) {
  const answer = /** @type {Answer & { data: { errors: import('../types').CellError[] } }} */ (
    await api('POST', '/dashboard/check', { form, field, value })
  );
  return answer.data.errors;
}

/**
 * Puts an error next to its field (focused), or at the top of the form.
 * @param {ErrorRow[]} rows
 * @param {HTMLElement} status
 * @param {unknown} caught
 */
export function showError(rows, status, caught) {
  const error = /** @type {{ message: string, field?: string }} */ (
    caught instanceof Error ? caught : { message: String(caught) }
  );
  const names = rows.map((r) => r.field.name);
  const name = fieldOf(error, names);
  const row = rows.find((r) => r.field.name === name);
  if (row?.editor) {
    // `geotarget.0.link`: the cell of the row the API counted (empty rows are never sent).
    const path = String(error.field ?? '')
      .split('.')
      .slice(1)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    row.editor.showErrors([{ path, message: error.message }]);
  } else if (row) {
    row.error.textContent = error.message;
    row.error.hidden = false;
    row.input.setAttribute('aria-invalid', 'true');
    row.input.focus();
  } else {
    status.replaceChildren(notice(error.message, 'error'));
    status.setAttribute('tabindex', '-1');
    status.focus();
  }
}
