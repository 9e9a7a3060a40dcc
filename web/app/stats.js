// Clicks over time (an SVG bar chart) and the top lists of a link or QR code.
import { api, errorBox, h } from './core.js';
/** @typedef {import('../types').SeriesPoint} SeriesPoint */
/** @typedef {import('../types').SeriesAnswer} SeriesAnswer */
/** @typedef {import('../types').Statistics} Statistics */
/** @typedef {'day' | 'week' | 'month'} Interval */

const SVG = 'http://www.w3.org/2000/svg';
const DAY = 86_400_000;
/** @type {Record<Interval, { label: string, days: number, caption: string }>} */
const RANGES = {
  day: { label: 'Days', days: 30, caption: 'per day, last 30 days' },
  week: { label: 'Weeks', days: 7 * 12, caption: 'per week, last 12 weeks' },
  month: { label: 'Months', days: 365, caption: 'per month, last 12 months' },
};

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {...(Node | string)} children
 */
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/**
 * Bars of `series`; a table with the same numbers serves screen readers.
 * @param {SeriesPoint[]} series
 * @param {string} caption
 * @param {string} [noun]
 */
export function barChart(series, caption, noun = 'Clicks') {
  const width = 600;
  const height = 200;
  const max = Math.max(1, ...series.map((p) => p.clicks));
  const step = width / Math.max(1, series.length);
  const total = series.reduce((sum, p) => sum + p.clicks, 0);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height + 20}`,
    class: 'chart',
    role: 'img',
    'aria-label': `${noun} ${caption}: ${total} in all`,
  });
  series.forEach((point, i) => {
    const barHeight = Math.round((point.clicks / max) * height);
    const bar = svg('rect', {
      x: i * step + 1,
      y: height - barHeight,
      width: Math.max(1, step - 2),
      height: barHeight,
      class: 'bar',
    });
    bar.append(svg('title', {}, `${String(point.t).slice(0, 10)}: ${point.clicks}`));
    chart.append(bar);
  });
  chart.append(svg('line', { x1: 0, y1: height, x2: width, y2: height, class: 'axis' }));
  const first = series[0];
  const last = series[series.length - 1];
  if (first && last) {
    chart.append(
      svg('text', { x: 0, y: height + 16, class: 'tick' }, String(first.t).slice(0, 10)),
    );
    chart.append(
      svg(
        'text',
        { x: width, y: height + 16, class: 'tick', 'text-anchor': 'end' },
        String(last.t).slice(0, 10),
      ),
    );
  }
  const rows = series.filter((p) => p.clicks > 0);
  return h(
    'figure',
    { class: 'chart-box' },
    chart,
    h(
      'figcaption',
      {},
      `${noun} `,
      caption,
      ': ',
      h('strong', { 'data-testid': 'range-total' }, String(total)),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Show as a table'),
      rows.length
        ? h(
            'table',
            { class: 'list' },
            h(
              'thead',
              {},
              h('tr', {}, h('th', { scope: 'col' }, 'From'), h('th', { scope: 'col' }, noun)),
            ),
            h(
              'tbody',
              {},
              rows.map((p) =>
                h('tr', {}, h('td', {}, String(p.t).slice(0, 10)), h('td', {}, String(p.clicks))),
              ),
            ),
          )
        : h('p', {}, `No ${noun.toLowerCase()} in this range.`),
    ),
  );
}

/**
 * @param {string} title
 * @param {Record<string, string>} map
 */
function topList(title, map) {
  const entries = Object.entries(map || {});
  return h(
    'section',
    { class: 'top-list' },
    h('h3', {}, title),
    entries.length
      ? h(
          'ol',
          {},
          entries.map(([label, count]) => h('li', {}, `${label || 'unknown'}: ${count}`)),
        )
      : h('p', { class: 'muted' }, 'Nothing yet.'),
  );
}

/**
 * The chart with its range switch, reading `{base}/stats` (e.g. /url/3/stats).
 * @param {string} base
 * @param {Statistics} statistics
 * @param {string} [noun]
 */
export function statsPanel(base, statistics, noun = 'Clicks') {
  const holder = h('div', {});
  const entries = /** @type {Array<[Interval, { label: string }]>} */ (Object.entries(RANGES));
  const buttons = entries.map(([interval, range]) =>
    h(
      'button',
      {
        type: 'button',
        'aria-pressed': 'false',
        'data-interval': interval,
        onclick: () => show(interval),
      },
      range.label,
    ),
  );
  /** @param {Interval} interval */
  async function show(interval) {
    for (const b of buttons)
      b.setAttribute('aria-pressed', String(b.dataset.interval === interval));
    const range = RANGES[interval];
    const to = new Date();
    const from = new Date(to.getTime() - range.days * DAY);
    try {
      const query = new URLSearchParams({
        interval,
        // The series' buckets follow the viewer's days where the API supports zones.
        tz: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
        from: from.toISOString(),
        to: to.toISOString(),
      });
      const body = /** @type {SeriesAnswer} */ (await api('GET', `${base}/stats?${query}`));
      holder.replaceChildren(
        barChart(body.data.series, `${range.caption} (${body.data.tz})`, noun),
      );
    } catch (error) {
      holder.replaceChildren(errorBox(error));
    }
  }
  show('day');
  return h(
    'section',
    { class: 'stats', 'aria-labelledby': 'stats-h' },
    h('h2', { id: 'stats-h' }, 'Statistics'),
    h(
      'p',
      {},
      'Total: ',
      h('strong', { 'data-testid': 'total-clicks' }, String(statistics.clicks)),
      ` ${noun.toLowerCase()}, ${statistics.uniqueClicks} unique visitors.`,
    ),
    h('div', { class: 'segmented', role: 'group', 'aria-label': 'Range' }, buttons),
    holder,
    h(
      'div',
      { class: 'tops' },
      topList('Countries', statistics.topCountries),
      topList('Referrers', statistics.topReferrers),
      topList('Browsers', statistics.topBrowsers),
      topList('Systems', statistics.topOs),
    ),
  );
}
