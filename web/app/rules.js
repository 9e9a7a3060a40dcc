// The redirect rules editor (issue 24): a group per rule with its URL and a control per key of
// its conditions (countries, devices, a date window...), never JSON. It keeps rows.js's contract
// (read, focus, showErrors), so forms.js places the API's messages (`rules.2.when.ip.0`) beside
// the control they name, and the API checks the rules as the person types.
import { h, nextId } from './core.js';
/** @typedef {import('../types').FormField} FormField */
/** @typedef {import('../types').RuleKeySpec} RuleKeySpec */
/** @typedef {import('../types').CellError} CellError */
/** @typedef {import('./rows.js').RowsEditor} RowsEditor */
/**
 * @typedef {{
 *   spec: RuleKeySpec,
 *   element: HTMLElement,
 *   first: HTMLInputElement,
 *   read: () => unknown,
 *   error: HTMLElement,
 * }} KeyControl
 * @typedef {{
 *   item: HTMLElement,
 *   title: HTMLElement,
 *   url: HTMLInputElement,
 *   urlError: HTMLElement,
 *   keys: KeyControl[],
 *   error: HTMLElement,
 *   buttons: HTMLButtonElement[],
 *   touched: boolean,
 * }} Rule
 * @typedef {{ url: string, when: Record<string, unknown> }} RuleValue
 */

const CHECK_DELAY_MS = 300;

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
 * @returns {KeyControl}
 */
function keyControl(spec, value) {
  const id = nextId(`rule-${spec.name}`);
  const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
  const help = spec.help ? h('p', { class: 'help', id: `${id}-help` }, spec.help) : null;
  const describedBy = [help?.id, error.id].filter(Boolean).join(' ');
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
  const input = h('input', {
    id,
    type: spec.kind === 'datetime' ? 'datetime-local' : 'text',
    step: spec.kind === 'datetime' ? '1' : undefined,
    value: text,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': describedBy,
  });
  const read = () => {
    const raw = input.value.trim();
    if (raw === '') return undefined;
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

/**
 * @param {{
 *   field: FormField,
 *   value: unknown,
 *   describedBy: string,
 *   check?: (value: unknown[]) => Promise<CellError[]>,
 * }} options
 * @returns {RowsEditor}
 */
export function rulesEditor({ field, value, describedBy, check }) {
  const specs = field.ruleKeys || [];
  /** @type {Rule[]} */
  const rules = [];
  const list = h('div', { class: 'rows-list' });
  const fieldError = h('p', { class: 'error', id: nextId('rules-error'), hidden: true });
  const add = h('button', { type: 'button', class: 'add-row' }, 'Add rule');
  const element = h(
    'fieldset',
    {
      class: 'rows rules',
      name: field.name,
      'aria-describedby': `${describedBy} ${fieldError.id}`.trim(),
    },
    h('legend', {}, field.label),
    list,
    fieldError,
    h('div', {}, add),
  );

  function renumber() {
    rules.forEach((rule, index) => {
      const name = `Rule ${index + 1}`;
      rule.item.setAttribute('aria-label', name);
      rule.title.textContent = name;
      const [up, down, remove] = rule.buttons;
      if (up && down && remove) {
        up.setAttribute('aria-label', `Move rule ${index + 1} up`);
        down.setAttribute('aria-label', `Move rule ${index + 1} down`);
        remove.setAttribute('aria-label', `Remove rule ${index + 1}`);
        up.disabled = index === 0;
        down.disabled = index === rules.length - 1;
      }
    });
    add.disabled = field.maxRows !== undefined && rules.length >= field.maxRows;
  }

  /**
   * @param {Rule} rule
   * @param {number} step
   * @param {HTMLButtonElement} button
   */
  function move(rule, step, button) {
    const from = rules.indexOf(rule);
    const to = from + step;
    if (to < 0 || to >= rules.length) return;
    rules.splice(from, 1);
    rules.splice(to, 0, rule);
    list.replaceChildren(...rules.map((r) => r.item));
    renumber();
    (button.disabled ? rule.url : button).focus();
    changed();
  }

  /** @param {Rule} rule */
  function remove(rule) {
    const index = rules.indexOf(rule);
    rules.splice(index, 1);
    rule.item.remove();
    renumber();
    const next = rules[index] || rules[index - 1];
    (next?.url ?? add).focus();
    changed();
  }

  /**
   * @param {RuleValue | undefined} initial
   * @returns {Rule}
   */
  function addRule(initial) {
    const when = initial?.when || {};
    const urlId = nextId('rule-url');
    const urlError = h('p', { class: 'error', id: `${urlId}-error`, hidden: true });
    const url = h('input', {
      id: urlId,
      type: 'url',
      value: initial?.url ?? '',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-required': 'true',
      'aria-describedby': urlError.id,
    });
    const keys = specs.map((spec) => keyControl(spec, when[spec.name]));
    const error = h('p', { class: 'error', id: nextId('rule-error'), hidden: true });
    const title = h('span', { class: 'row-title', 'aria-hidden': 'true' });
    const buttons = ['Up', 'Down', 'Remove'].map((text) =>
      h('button', { type: 'button', class: text === 'Remove' ? 'danger' : '' }, text),
    );
    const item = h(
      'div',
      { class: 'row rule', role: 'group', 'aria-describedby': error.id },
      title,
      h('div', { class: 'cell rule-url' }, h('label', { for: urlId }, 'Send to'), url, urlError),
      keys.map((k) => k.element),
      error,
      h('div', { class: 'row-actions' }, buttons),
    );
    /** @type {Rule} */
    const rule = {
      item,
      title,
      url,
      urlError,
      keys,
      error,
      buttons,
      touched: initial !== undefined,
    };
    const [up, down, del] = buttons;
    up?.addEventListener('click', () => move(rule, -1, up));
    down?.addEventListener('click', () => move(rule, 1, down));
    del?.addEventListener('click', () => remove(rule));
    const touch = () => {
      rule.touched = true;
      changed();
    };
    item.addEventListener('input', touch);
    item.addEventListener('change', touch);
    rules.push(rule);
    list.append(item);
    renumber();
    return rule;
  }

  /**
   * The rules that say something, with the rule each came from (empty ones are never sent).
   * @returns {{ value: RuleValue, rule: Rule }[]}
   */
  function filled() {
    return rules
      .map((rule) => {
        /** @type {Record<string, unknown>} */
        const when = {};
        for (const key of rule.keys) {
          const v = key.read();
          if (v !== undefined) when[key.spec.name] = v;
        }
        const url = rule.url.value.trim();
        if (url === '' && Object.keys(when).length === 0) return undefined;
        return { value: { url, when }, rule };
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
   * @param {HTMLElement} box
   * @param {HTMLElement} control
   * @param {string} message
   */
  function mark(box, control, message) {
    box.textContent = message;
    box.hidden = false;
    control.setAttribute('aria-invalid', 'true');
  }

  /**
   * Each message beside its control: the URL, a key, or the rule as a whole (only on rules
   * touched while typing; on all after a save, the first one focused).
   * @param {CellError[]} errors
   * @param {boolean} [all]
   */
  function showErrors(errors, all = true) {
    const sent = filled();
    for (const rule of rules) {
      for (const box of [rule.urlError, rule.error, ...rule.keys.map((k) => k.error)])
        box.hidden = true;
      for (const control of [rule.url, ...rule.keys.map((k) => k.first)])
        control.removeAttribute('aria-invalid');
    }
    fieldError.hidden = true;
    /** @type {HTMLElement | undefined} */
    let first;
    for (const { path, message } of errors) {
      const [index, part, name] = path;
      const rule = typeof index === 'number' ? sent[index]?.rule : undefined;
      if (!rule) {
        fieldError.textContent = message;
        fieldError.hidden = false;
        continue;
      }
      if (!all && !rule.touched) continue;
      const key = part === 'when' ? rule.keys.find((k) => k.spec.name === name) : undefined;
      if (part === 'url') mark(rule.urlError, rule.url, message);
      else if (key) mark(key.error, key.first, message);
      else mark(rule.error, rule.url, message);
      first ??= part === 'url' || !key ? rule.url : key.first;
    }
    if (all) (first ?? rules[0]?.url ?? add).focus();
  }

  add.addEventListener('click', () => addRule(undefined).url.focus());
  if (Array.isArray(value)) for (const entry of value) addRule(/** @type {RuleValue} */ (entry));
  renumber();

  return {
    element,
    read: () => {
      const values = filled().map((entry) => entry.value);
      return values.length ? values : undefined;
    },
    focus: () => (rules[0]?.url ?? add).focus(),
    showErrors,
  };
}
