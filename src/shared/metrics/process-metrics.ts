import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

/**
 * Metrics of the process rather than of one app instance: Node's own (event-loop lag, heap, GC)
 * and the in-process caches. One registry per process, so tests that build many apps do not
 * start many event-loop monitors.
 */
export const processRegistry = new Registry();

let defaultsStarted = false;

/** Starts Node's default collectors once per process (event-loop lag needs to run to measure). */
export function startProcessMetrics(): Registry {
  if (!defaultsStarted) {
    collectDefaultMetrics({ register: processRegistry });
    defaultsStarted = true;
  }
  return processRegistry;
}

/**
 * Lookups per cache, counted in plain numbers and handed to prom-client at scrape time: a
 * labelled increment hashes and checks its labels on every call, even through a bound child
 * (about 0.5 µs), and the link cache counts one for every redirect.
 */
const lookupCounts = new Map<string, { hit: number; miss: number }>();

new Counter({
  name: 'linkqr_cache_lookups_total',
  help: 'In-process cache lookups by cache and result (hit or miss); the hit rate is hit / total',
  labelNames: ['cache', 'result'] as const,
  registers: [processRegistry],
  collect() {
    this.reset();
    for (const [cache, { hit, miss }] of lookupCounts) {
      if (hit) this.inc({ cache, result: 'hit' }, hit);
      if (miss) this.inc({ cache, result: 'miss' }, miss);
    }
  },
});

/** The counters of one cache, so the hot path pays no label lookup. */
export function cacheCounters(cache: string) {
  let counts = lookupCounts.get(cache);
  if (!counts) {
    counts = { hit: 0, miss: 0 };
    lookupCounts.set(cache, counts);
  }
  const of = counts;
  return {
    hit: {
      inc() {
        of.hit += 1;
      },
    },
    miss: {
      inc() {
        of.miss += 1;
      },
    },
  };
}
