// The print check beside a saved code's preview: a scanning distance in, the smallest print out.
import { api, h, messageOf, nextId, notice } from './core.js';
/** @typedef {import('../types').PrintCheck} PrintCheck */
/** @typedef {import('../types').Answer & { data: PrintCheck }} PrintAnswer */

/**
 * @param {string} term
 * @param {string} value
 */
const row = (term, value) => [h('dt', {}, term), h('dd', {}, value)];

/** @param {PrintCheck} c */
function report(c) {
  const ec = c.errorCorrection;
  return [
    h(
      'dl',
      { class: 'print-check', 'data-testid': 'print-check' },
      ...row('Module size', `${c.moduleMm} mm`),
      ...row(
        'Total size',
        `${c.width} × ${c.height} mm (symbol ${c.symbolMm} mm, ${c.modules} modules)`,
      ),
      ...row('Rule', c.rule),
      ...row('Contrast', `${c.contrast.toFixed(2)}:1`),
      ...row('Quiet zone', `${c.quietZone.modules} modules (${c.quietZone.mm} mm)`),
      ...row(
        'Error-correction headroom',
        `level ${ec.level}: ${ec.headroom} of ${ec.correctable} codewords per block left after the logo`,
      ),
    ),
    c.warnings.length
      ? h(
          'ul',
          { class: 'warnings', 'aria-label': 'Warnings' },
          c.warnings.map((w) => h('li', {}, w)),
        )
      : h('p', { class: 'muted' }, 'No warnings.'),
  ];
}

/**
 * @param {number} id
 * @returns {{ element: HTMLElement, refresh: () => void }}
 */
export function printPanel(id) {
  const inputId = nextId('print-distance');
  const distance = h('input', {
    id: inputId,
    name: 'distance',
    type: 'number',
    min: '0.1',
    max: '200',
    step: '0.1',
    value: '1',
  });
  const out = h('div', { 'aria-live': 'polite' });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function refresh() {
    try {
      const query = encodeURIComponent(distance.value);
      const answer = /** @type {PrintAnswer} */ (
        await api('GET', `/qr/${id}/print?distance=${query}`)
      );
      out.replaceChildren(...report(answer.data));
    } catch (error) {
      out.replaceChildren(notice(messageOf(error), 'error'));
    }
  }
  distance.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 300);
  });
  refresh();
  const element = h(
    'section',
    { class: 'print-box', 'aria-labelledby': `${inputId}-h` },
    h('h2', { id: `${inputId}-h` }, 'Print check'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: inputId }, 'Scanning distance in metres'),
      distance,
    ),
    out,
  );
  return { element, refresh };
}
