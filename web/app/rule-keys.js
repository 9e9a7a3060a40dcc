// One condition of a redirect rule in the rules editor (web/app/rules.js): the control for a key
// of the rule's `when` (a list, a box per device, query parameters or a local date and time), or
// the one value of a GemPixel targeting rule (a country, a device, a language), what it reads
// back for the API, and where the API's message about it goes.
import { h, nextId } from './core.js';
/** @typedef {import('../types').RuleKeySpec} RuleKeySpec */
/**
 * @typedef {{
 *   spec: RuleKeySpec,
 *   element: HTMLElement,
 *   first: HTMLInputElement | HTMLSelectElement,
 *   read: () => unknown,
 *   error: HTMLElement,
 * }} KeyControl
 */

/** @param {number} n */
const pad = (n) => String(n).padStart(2, '0');

/**
 * An ISO 8601 instant as a datetime-local value in the browser's zone.
 * @param {unknown} value
 */
function localInput(value) {
  const date = new Date(String(value ?? ''));
  if (!value || Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * @param {RuleKeySpec} spec
 * @param {unknown} value the key's value in the stored rule
 * @param {string} [list] `suggest`: the id of the datalist every row's control shares
 * @returns {KeyControl}
 */
export function keyControl(spec, value, list) {
  const id = nextId(`rule-${spec.name}`);
  const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
  const help = spec.help ? h('p', { class: 'help', id: `${id}-help` }, spec.help) : null;
  const describedBy = [help?.id, error.id].filter(Boolean).join(' ');
  if (spec.kind === 'select') {
    const current = value === undefined || value === null ? '' : String(value);
    const select = h(
      'select',
      { id, 'aria-describedby': describedBy, 'aria-required': 'true' },
      h('option', { value: '' }, 'Choose…'),
      (spec.options || []).map((o) =>
        h('option', { value: o.value, selected: o.value === current }, o.label),
      ),
    );
    const read = () => select.value || undefined;
    const element = h(
      'div',
      { class: 'cell' },
      h('label', { for: id }, spec.label),
      select,
      help,
      error,
    );
    return { spec, element, first: select, read, error };
  }
  if (spec.kind === 'devices') {
    const chosen = Array.isArray(value) ? value.map(String) : [];
    const boxes = (spec.options || []).map((o) =>
      h('input', {
        type: 'checkbox',
        id: nextId('device'),
        value: o.value,
        checked: chosen.includes(o.value),
      }),
    );
    const element = h(
      'fieldset',
      { class: 'cell rule-devices', 'aria-describedby': describedBy },
      h('legend', {}, spec.label),
      boxes.map((box, i) =>
        h(
          'span',
          { class: 'check' },
          box,
          h('label', { for: box.id }, spec.options?.[i]?.label ?? ''),
        ),
      ),
      error,
    );
    const read = () => {
      const values = boxes.filter((b) => b.checked).map((b) => b.value);
      return values.length ? values : undefined;
    };
    return { spec, element, first: /** @type {HTMLInputElement} */ (boxes[0]), read, error };
  }
  let text = '';
  if (spec.kind === 'list' && Array.isArray(value)) text = value.join(', ');
  if (spec.kind === 'query' && value && typeof value === 'object')
    text = new URLSearchParams(/** @type {Record<string, string>} */ (value)).toString();
  if (spec.kind === 'datetime') text = localInput(value);
  if (spec.kind === 'suggest' && typeof value === 'string') text = value;
  const input = h('input', {
    id,
    type: spec.kind === 'datetime' ? 'datetime-local' : 'text',
    step: spec.kind === 'datetime' ? '1' : undefined,
    value: text,
    autocomplete: 'off',
    spellcheck: 'false',
    list,
    'aria-required': spec.kind === 'suggest' ? 'true' : undefined,
    'aria-describedby': describedBy,
  });
  const read = () => {
    const raw = input.value.trim();
    if (raw === '') return undefined;
    if (spec.kind === 'suggest') return raw;
    if (spec.kind === 'list') {
      const values = raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
      return values.length ? values : undefined;
    }
    if (spec.kind === 'query') return Object.fromEntries(new URLSearchParams(raw));
    const date = new Date(raw);
    return Number.isNaN(date.getTime()) ? raw : date.toISOString();
  };
  const element = h(
    'div',
    { class: 'cell' },
    h('label', { for: id }, spec.label),
    input,
    help,
    error,
  );
  return { spec, element, first: input, read, error };
}
