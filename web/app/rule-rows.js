// One list of the rules editor (web/app/rules.js): a group per rule with its URL and a control
// per key, moved, removed and added with buttons, checked by the API as the person types, and
// each of the API's messages shown beside the control it names. The link's `rules` are one such
// list (`{url, when: {...}}`); each of GemPixel's targeting maps is another, whose rules have one
// key beside the URL (`{location, link}`).
import { h, nextId } from './core.js';
import { keyControl } from './rule-keys.js';
/** @typedef {import('../types').CellError} CellError */
/** @typedef {import('../types').RuleKeySpec} RuleKeySpec */
/** @typedef {import('./rule-keys.js').KeyControl} KeyControl */
/**
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
 * @typedef {{
 *   rowLabel: string,
 *   urlName: string,
 *   whenName?: string,
 *   keys: RuleKeySpec[],
 *   lists?: Map<string, string>,
 *   maxRows?: number,
 *   value: unknown,
 *   check?: (value: unknown[]) => Promise<CellError[]>,
 * }} RuleListOptions
 * `urlName`: the key of an entry's destination (`url`, `link`); `whenName`: the key its
 * conditions sit under (`when`), or none when they sit beside the destination; `lists`: the
 * datalist of each `suggest` key.
 * @typedef {{
 *   list: HTMLElement,
 *   fieldError: HTMLElement,
 *   add: HTMLButtonElement,
 *   read: () => unknown[] | undefined,
 *   focus: () => void,
 *   showErrors: (errors: CellError[], all?: boolean) => void,
 * }} RuleList
 */

const CHECK_DELAY_MS = 300;

/** @param {string} text */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * @param {RuleListOptions} options
 * @returns {RuleList}
 */
export function ruleList({
  rowLabel,
  urlName,
  whenName,
  keys: specs,
  lists,
  maxRows,
  value,
  check,
}) {
  /** @type {Rule[]} */
  const rules = [];
  const list = h('div', { class: 'rows-list' });
  const fieldError = h('p', { class: 'error', id: nextId('rules-error'), hidden: true });
  const add = h('button', { type: 'button', class: 'add-row' }, `Add ${rowLabel}`);

  function renumber() {
    rules.forEach((rule, index) => {
      const name = `${capital(rowLabel)} ${index + 1}`;
      rule.item.setAttribute('aria-label', name);
      rule.title.textContent = name;
      const [up, down, remove] = rule.buttons;
      if (up && down && remove) {
        up.setAttribute('aria-label', `Move ${rowLabel} ${index + 1} up`);
        down.setAttribute('aria-label', `Move ${rowLabel} ${index + 1} down`);
        remove.setAttribute('aria-label', `Remove ${rowLabel} ${index + 1}`);
        up.disabled = index === 0;
        down.disabled = index === rules.length - 1;
      }
    });
    add.disabled = maxRows !== undefined && rules.length >= maxRows;
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
   * @param {unknown} initial an entry as the API answers it
   * @returns {Rule}
   */
  function addRule(initial) {
    const entry = /** @type {Record<string, unknown>} */ (initial || {});
    const when = /** @type {Record<string, unknown>} */ (
      (whenName ? entry[whenName] : entry) || {}
    );
    const urlId = nextId('rule-url');
    const urlError = h('p', { class: 'error', id: `${urlId}-error`, hidden: true });
    const url = h('input', {
      id: urlId,
      type: 'url',
      value: typeof entry[urlName] === 'string' ? entry[urlName] : '',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-required': 'true',
      'aria-describedby': urlError.id,
    });
    const keys = specs.map((spec) => keyControl(spec, when[spec.name], lists?.get(spec.name)));
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
   * The rules that say something, as the API takes them, with the rule each came from (empty
   * ones are never sent; a map's rule sends an empty key as '' so the API names it).
   * @returns {{ value: Record<string, unknown>, rule: Rule }[]}
   */
  function filled() {
    return rules
      .map((rule) => {
        /** @type {Record<string, unknown>} */
        const when = {};
        for (const key of rule.keys) {
          const v = key.read();
          if (v !== undefined) when[key.spec.name] = v;
          else if (!whenName) when[key.spec.name] = '';
        }
        const url = rule.url.value.trim();
        if (url === '' && Object.values(when).every((v) => v === '')) return undefined;
        const value = whenName ? { [urlName]: url, [whenName]: when } : { ...when, [urlName]: url };
        return { value, rule };
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
   * The key an error's path names after the rule's index (`when.ip`, or `location` in a map).
   * @param {Rule} rule
   * @param {Array<string | number>} rest
   */
  function keyOf(rule, [part, name]) {
    const wanted = whenName ? (part === whenName ? name : undefined) : part;
    return rule.keys.find((k) => k.spec.name === wanted);
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
      const [index, ...rest] = path;
      const rule = typeof index === 'number' ? sent[index]?.rule : undefined;
      if (!rule) {
        fieldError.textContent = message;
        fieldError.hidden = false;
        first ??= add;
        continue;
      }
      if (!all && !rule.touched) continue;
      const key = keyOf(rule, rest);
      if (rest[0] === urlName) mark(rule.urlError, rule.url, message);
      else if (key) mark(key.error, key.first, message);
      else mark(rule.error, rule.url, message);
      first ??= rest[0] === urlName || !key ? rule.url : key.first;
    }
    if (all && errors.length) (first ?? rules[0]?.url ?? add).focus();
  }

  add.addEventListener('click', () => addRule(undefined).url.focus());
  if (Array.isArray(value)) for (const entry of value) addRule(entry);
  renumber();

  return {
    list,
    fieldError,
    add,
    read: () => {
      const values = filled().map((entry) => entry.value);
      return values.length ? values : undefined;
    },
    focus: () => (rules[0]?.url ?? add).focus(),
    showErrors,
  };
}
