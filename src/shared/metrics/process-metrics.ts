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

const cacheLookups = new Counter({
  name: 'linkqr_cache_lookups_total',
  help: 'In-process cache lookups by cache and result (hit or miss); the hit rate is hit / total',
  labelNames: ['cache', 'result'] as const,
  registers: [processRegistry],
});

/** Pre-bound counters for one cache, so the hot path pays no label lookup. */
export function cacheCounters(cache: string) {
  return { hit: cacheLookups.labels(cache, 'hit'), miss: cacheLookups.labels(cache, 'miss') };
}
