// The redirect rules editor (issue 24): a group per rule with its URL and a control per key of
// its conditions (countries, devices, a date window...), never JSON. GemPixel's three targeting
// maps (geotarget, devicetarget, languagetarget) are edited in it too: each is a list of rules of
// one key (a country, a device, a language), shown after the link's rules because the engine
// tries them after (src/visitor/rules/rules.ts), labelled with the field API clients read them
// from, and saved back to that field. Each list keeps rows.js's contract (read, focus,
// showErrors), so forms.js places the API's messages (`rules.2.when.ip.0`, `geotarget.0.link`)
// beside the control they name, and the API checks each list as the person types.
import { h, nextId } from './core.js';
import { ruleList } from './rule-rows.js';
/** @typedef {import('../types').FormField} FormField */
/** @typedef {import('../types').CellError} CellError */
/** @typedef {import('../types').RuleKeySpec} RuleKeySpec */
/** @typedef {import('./rows.js').RowsEditor} RowsEditor */
/**
 * @typedef {{
 *   element: HTMLFieldSetElement,
 *   parts: Map<string, RowsEditor>,
 * }} RulesEditor
 * `parts`: the editor of each field it edits (`rules` and each map), by the field's name.
 */

/**
 * A map's one key, from the cells the server derived from its schema (`location` and `link`).
 * @param {FormField} map
 * @returns {{ key: RuleKeySpec, urlName: string }}
 */
function mapShape(map) {
  const columns = map.columns || [];
  const url = columns.find((c) => c.kind === 'url' || c.name === 'link');
  const column = columns.find((c) => c !== url);
  if (!url || !column) throw new Error(`${map.name}: a targeting map needs a key and a link`);
  return {
    key: {
      name: column.name,
      label: column.label,
      kind: column.kind === 'select' ? 'select' : 'suggest',
      ...(column.options ? { options: column.options } : {}),
    },
    urlName: url.name,
  };
}

/**
 * @param {{
 *   field: FormField,
 *   value: unknown,
 *   maps?: Array<{ field: FormField, value: unknown }>,
 *   describedBy: string,
 *   help?: HTMLElement | null,
 *   check?: (name: string, value: unknown[]) => Promise<CellError[]>,
 * }} options
 * @returns {RulesEditor}
 */
export function rulesEditor({ field, value, maps = [], describedBy, help, check }) {
  /** @type {Map<string, RowsEditor>} */
  const parts = new Map();
  /** @param {string} name */
  const checkOf = (name) => (check ? (/** @type {unknown[]} */ v) => check(name, v) : undefined);

  const rules = ruleList({
    rowLabel: field.rowLabel || 'rule',
    urlName: 'url',
    whenName: 'when',
    keys: field.ruleKeys || [],
    maxRows: field.maxRows,
    value,
    check: checkOf(field.name),
  });

  const sections = maps.map(({ field: map, value: entries }) => {
    const { key, urlName } = mapShape(map);
    /** @type {Map<string, string>} */
    const lists = new Map();
    const datalist =
      key.kind === 'suggest' && key.options
        ? h(
            'datalist',
            { id: nextId('suggest') },
            key.options.map((o) => h('option', { value: o.value }, o.label)),
          )
        : null;
    if (datalist) lists.set(key.name, datalist.id);
    const part = ruleList({
      rowLabel: map.rowLabel || 'rule',
      urlName,
      keys: [key],
      lists,
      maxRows: map.maxRows,
      value: entries,
      check: checkOf(map.name),
    });
    const helpId = map.help ? nextId('map-help') : undefined;
    const element = h(
      'fieldset',
      {
        class: 'rule-map',
        name: map.name,
        'aria-describedby': [helpId, part.fieldError.id].filter(Boolean).join(' '),
      },
      h('legend', {}, map.label),
      map.help ? h('p', { class: 'help', id: helpId }, map.help) : null,
      datalist,
      part.list,
      part.fieldError,
      h('div', {}, part.add),
    );
    return { name: map.name, part, element };
  });

  const element = h(
    'fieldset',
    {
      class: 'rows rules',
      name: field.name,
      'aria-describedby': `${describedBy} ${rules.fieldError.id}`.trim(),
    },
    h('legend', {}, field.label),
    help,
    rules.list,
    rules.fieldError,
    h('div', {}, rules.add),
    sections.map((s) => s.element),
  );

  /**
   * @param {import('./rule-rows.js').RuleList} list
   * @returns {RowsEditor}
   */
  const editorOf = (list) => ({
    element,
    read: list.read,
    focus: list.focus,
    showErrors: list.showErrors,
  });
  parts.set(field.name, editorOf(rules));
  for (const { name, part } of sections) parts.set(name, editorOf(part));
  return { element, parts };
}
