// What a link's page says about its click limit, A/B variants and monitored destination (issue 24).
import { h } from './core.js';
/** @typedef {import('../types').LinkDetails} LinkDetails */

const HEALTH = {
  unknown: 'Not checked yet',
  healthy: 'Healthy',
  broken: 'Broken',
};

/**
 * The health badge of a monitored link, with what the last checks found.
 * @param {LinkDetails} link
 */
function healthFact(link) {
  const { status, checked, since, lastError } = link.health;
  const detail = [
    since ? `since ${since} UTC` : null,
    checked ? `last checked ${checked} UTC` : null,
    lastError ? `last error: ${lastError}` : null,
  ].filter(Boolean);
  return h(
    'dd',
    {},
    h('span', { class: `badge health-${status}`, 'data-testid': 'health' }, HEALTH[status]),
    detail.length ? ` ${detail.join(' · ')}` : '',
    status === 'broken' && link.fallback
      ? h('div', { class: 'url' }, `Visitors go to ${link.fallback}`)
      : null,
  );
}

/**
 * `dt`/`dd` pairs for the facts list; nothing for a link without a limit, variants or monitoring.
 * @param {LinkDetails} link
 */
export function behaviourFacts(link) {
  return [
    link.monitor ? [h('dt', {}, 'Destination health'), healthFact(link)] : [],
    link.maxclicks
      ? [h('dt', {}, 'Click limit'), h('dd', {}, `${link.clicks} of ${link.maxclicks} clicks used`)]
      : [],
    link.variants.length
      ? [
          h('dt', {}, 'A/B variants'),
          h(
            'dd',
            {},
            h(
              'ul',
              { class: 'variants', 'aria-label': 'A/B variants' },
              link.variants.map((v) =>
                h(
                  'li',
                  {},
                  h('span', { class: 'url' }, v.url),
                  ` · ${v.weight} % · ${v.clicks} clicks`,
                ),
              ),
            ),
          ),
        ]
      : [],
  ];
}
