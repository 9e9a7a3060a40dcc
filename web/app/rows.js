// A row editor: a list of rows (a link's targeting rules, its parameters, its pixels) edited as
// rows of cells, never typed as JSON. Rows are added, removed and moved with buttons (the keyboard
// reaches every one), and each cell shows the API's own message for it as the person types.
// Reusable: a form field of kind `rows` gets one, and so can any later list editor.
import { choicesFrom, h, nextId } from './core.js';
/** @typedef {import('../types').FormField} FormField */
/** @typedef {import('../types').RowColumn} RowColumn */
/** @typedef {import('../types').CellError} CellError */
/** @typedef {HTMLInputElement | HTMLSelectElement} CellInput */
/** @typedef {{ column: RowColumn, input: CellInput, error: HTMLElement, touched: boolean }} Cell */
/** @typedef {{ item: HTMLDivElement, cells: Cell[], title: HTMLElement, buttons: HTMLButtonElement[] }} Row */

/** How long typing pauses before the API is asked about the rows. */
const CHECK_DELAY_MS = 300;

/**
 * @param {string} text
 */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A row's value for a cell, as the API answers it: objects keyed by column, or the bare value.
 * @param {unknown} row
 * @param {RowColumn} column
 */
function cellValue(row, column) {
  const value =
    column.name === '' ? row : /** @type {Record<string, unknown>} */ (row || {})[column.name];
  return value === undefined || value === null ? '' : String(value);
}

/**
 * @typedef {{
 *   element: HTMLFieldSetElement,
 *   read: () => unknown[] | undefined,
 *   focus: () => void,
 *   showErrors: (errors: CellError[], all?: boolean) => void,
 * }} RowsEditor
 */

/**
 * @param {{
 *   field: FormField,
 *   value: unknown,
 *   describedBy: string,
 *   check?: (value: unknown[]) => Promise<CellError[]>,
 * }} options
 * @returns {RowsEditor}
 */
export function rowsEditor({ field, value, describedBy, check }) {
  const columns = field.columns || [];
  const rowLabel = field.rowLabel || 'row';
  const single = columns.length === 1 && columns[0]?.name === '';
  /** @type {Row[]} */
  const rows = [];
  const list = h('div', { class: 'rows-list' });
  const fieldError = h('p', { class: 'error', id: nextId('rows-error'), hidden: true });
  const add = h('button', { type: 'button', class: 'add-row' }, `Add ${rowLabel}`);
  const element = h(
    'fieldset',
    {
      class: 'rows',
      name: field.name,
      'aria-describedby': `${describedBy} ${fieldError.id}`.trim(),
    },
    h('legend', {}, field.label, field.required ? ' (required)' : ''),
    list,
    fieldError,
    h('div', {}, add),
  );

  /** Suggestions shared by every row's cell of a column. */
  /** @type {Map<RowColumn, string>} */
  const datalists = new Map();
  for (const column of columns) {
    if (column.kind !== 'suggest' || !column.options) continue;
    const id = nextId('suggest');
    datalists.set(column, id);
    element.append(
      h(
        'datalist',
        { id },
        column.options.map((o) => h('option', { value: o.value }, o.label)),
      ),
    );
  }
  /** Choices loaded from the API (the caller's pixels), once for every row. */
  /** @type {Map<RowColumn, Promise<import('../types').FieldOption[]>>} */
  const loaded = new Map();
  for (const column of columns) {
    if (column.optionsFrom) loaded.set(column, choicesFrom(column.optionsFrom));
  }

  /**
   * @param {RowColumn} column
   * @param {string} text
   * @param {string} id
   * @returns {CellInput}
   */
  function cellInput(column, text, id) {
    if (column.kind === 'select') {
      const select = h('select', { id }, h('option', { value: '' }, 'Choose…'));
      const fill = (/** @type {import('../types').FieldOption[]} */ options) => {
        for (const o of options) {
          select.append(h('option', { value: o.value, selected: o.value === text }, o.label));
        }
      };
      if (column.options) fill(column.options);
      const source = loaded.get(column);
      if (source) {
        source.then(fill, () =>
          select.append(h('option', { disabled: true }, 'Could not load the choices')),
        );
      }
      return select;
    }
    return h('input', {
      id,
      type: column.kind === 'url' ? 'url' : 'text',
      value: text,
      autocomplete: 'off',
      list: datalists.get(column),
      spellcheck: column.kind === 'url' ? 'false' : undefined,
    });
  }

  function renumber() {
    rows.forEach((row, index) => {
      const name = `${capital(rowLabel)} ${index + 1}`;
      row.item.setAttribute('aria-label', name);
      row.title.textContent = name;
      const [up, down, remove] = row.buttons;
      if (up && down && remove) {
        up.setAttribute('aria-label', `Move ${rowLabel} ${index + 1} up`);
        down.setAttribute('aria-label', `Move ${rowLabel} ${index + 1} down`);
        remove.setAttribute('aria-label', `Remove ${rowLabel} ${index + 1}`);
        up.disabled = index === 0;
        down.disabled = index === rows.length - 1;
      }
    });
    add.disabled = field.maxRows !== undefined && rows.length >= field.maxRows;
  }

  /**
   * Moves a row by `step` places, keeping the focus on the button that moved it.
   * @param {Row} row
   * @param {number} step
   * @param {HTMLButtonElement} button
   */
  function move(row, step, button) {
    const from = rows.indexOf(row);
    const to = from + step;
    if (to < 0 || to >= rows.length) return;
    rows.splice(from, 1);
    rows.splice(to, 0, row);
    list.replaceChildren(...rows.map((r) => r.item));
    renumber();
    (button.disabled ? (row.cells[0]?.input ?? add) : button).focus();
    changed();
  }

  /** @param {Row} row */
  function remove(row) {
    const index = rows.indexOf(row);
    rows.splice(index, 1);
    row.item.remove();
    renumber();
    const next = rows[index] || rows[index - 1];
    (next?.cells[0]?.input ?? add).focus();
    changed();
  }

  /**
   * @param {unknown} initial
   * @returns {Row}
   */
  function addRow(initial) {
    const item = h('div', { class: 'row', role: 'group' });
    const title = h('span', { class: 'row-title', 'aria-hidden': 'true' });
    /** @type {Cell[]} */
    const cells = columns.map((column) => {
      const id = nextId('cell');
      const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
      const input = cellInput(column, cellValue(initial, column), id);
      input.setAttribute('aria-describedby', error.id);
      if (column.required) input.setAttribute('aria-required', 'true');
      return { column, input, error, touched: initial !== undefined };
    });
    const buttons = ['Up', 'Down', 'Remove'].map((text) =>
      h('button', { type: 'button', class: text === 'Remove' ? 'danger' : '' }, text),
    );
    /** @type {Row} */
    const row = { item, cells, title, buttons };
    const [up, down, del] = buttons;
    up?.addEventListener('click', () => move(row, -1, up));
    down?.addEventListener('click', () => move(row, 1, down));
    del?.addEventListener('click', () => remove(row));
    for (const cell of cells) {
      const touch = () => {
        cell.touched = true;
        changed();
      };
      cell.input.addEventListener('input', touch);
      cell.input.addEventListener('change', touch);
    }
    item.append(
      title,
      ...cells.map((cell) =>
        h(
          'div',
          { class: 'cell' },
          h('label', { for: cell.input.id }, cell.column.label),
          cell.input,
          cell.error,
        ),
      ),
      h('div', { class: 'row-actions' }, buttons),
    );
    rows.push(row);
    list.append(item);
    renumber();
    return row;
  }

  /**
   * The rows that say something, with their place among all rows (empty rows are left out).
   * @returns {{ value: unknown, row: Row }[]}
   */
  function filled() {
    return rows
      .map((row) => {
        const texts = row.cells.map((cell) => cell.input.value.trim());
        if (texts.every((t) => t === '')) return undefined;
        if (single) {
          const text = texts[0] || '';
          const numeric = Boolean(row.cells[0]?.column.optionsFrom) && /^\d+$/.test(text);
          return { value: numeric ? Number(text) : text, row };
        }
        /** @type {Record<string, string>} */
        const object = {};
        row.cells.forEach((cell, i) => (object[cell.column.name] = texts[i] || ''));
        return { value: object, row };
      })
      .filter((entry) => entry !== undefined);
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let asked = 0;
  function changed() {
    if (!check) return;
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const ticket = (asked += 1);
      const errors = await check(filled().map((entry) => entry.value)).catch(() => undefined);
      if (errors && ticket === asked) showErrors(errors, false);
    }, CHECK_DELAY_MS);
  }

  /**
   * Puts each message next to its cell (on touched cells only while typing; on all after a save),
   * and a message about the whole list under it.
   * @param {CellError[]} errors
   * @param {boolean} [all]
   */
  function showErrors(errors, all = true) {
    const sent = filled();
    for (const row of rows) {
      for (const cell of row.cells) {
        cell.error.hidden = true;
        cell.input.removeAttribute('aria-invalid');
      }
    }
    fieldError.hidden = true;
    /** @type {CellInput | undefined} */
    let first;
    for (const error of errors) {
      const [index, key] = error.path;
      const row = typeof index === 'number' ? sent[index]?.row : undefined;
      const cell = row?.cells.find((c) => c.column.name === (single ? '' : key)) ?? row?.cells[0];
      if (!cell) {
        fieldError.textContent = error.message;
        fieldError.hidden = false;
        continue;
      }
      if (!all && !cell.touched) continue;
      cell.error.textContent = error.message;
      cell.error.hidden = false;
      cell.input.setAttribute('aria-invalid', 'true');
      first ??= cell.input;
    }
    if (all) (first ?? rows[0]?.cells[0]?.input ?? add).focus();
  }

  add.addEventListener('click', () => {
    const row = addRow(undefined);
    row.cells[0]?.input.focus();
  });
  if (Array.isArray(value)) for (const entry of value) addRow(entry);
  renumber();

  return {
    element,
    read: () => {
      const values = filled().map((entry) => entry.value);
      return values.length ? values : undefined;
    },
    focus: () => (rows[0]?.cells[0]?.input ?? add).focus(),
    showErrors,
  };
}
