import type { RequestHandler } from 'express';
import type { RedisClient } from '../infra/redis-connections';
import { Counter, Gauge, Registry } from 'prom-client';
import { routeTemplateOf } from '../http/endpoint';
import type { RedisKeys } from '../infra/redis-keys';
import { DRAINER_GROUP } from '../../visits/visit-stream';
import type { QrRenderQueue } from '../../qr-codes/qr-codes.jobs';
import type { Visits } from '../../visits/visit-recorder';
import { LocalHistogram } from './local-histogram';
import { startProcessMetrics } from './process-metrics';

export interface ApiMetrics {
  /** Counts and times every request by route template and status. */
  observe: RequestHandler;
  /** Counts and times a request answered without `observe` (the fast paths). */
  count(method: string, route: string, status: number, seconds: number): void;
  /** `count` for one method, route and status, its labels resolved once: give it the seconds. */
  counter(method: string, route: string, status: number): (seconds: number) => void;
  /** The Prometheus text of this app and of the process. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Seconds: the request-duration histogram's bucket bounds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Public routes whose 302 is a redirect served to a visitor, by what was followed. */
const REDIRECT_ROUTES: Readonly<Record<string, string>> = {
  '/:alias': 'link',
  '/s/:alias': 'qr',
  '/r/:slug': 'rotator',
};

/** Milliseconds since the oldest entry of a stream was queued (its id starts with that time). */
function ageOfId(id: string | undefined, now: number): number {
  const ms = Number(id?.split('-')[0]);
  return Number.isFinite(ms) && ms > 0 ? Math.max(0, now - ms) : 0;
}

/**
 * The API's metrics: request counts and latencies, redirects, and, read from Redis at scrape
 * time, the visit backlog with its drain lag and the QR render queue. A scrape while Redis is
 * down still answers, without those gauges' fresh values.
 */
export function createApiMetrics(deps: {
  redis: RedisClient;
  keys: RedisKeys;
  qrQueue: QrRenderQueue;
  visits: Pick<Visits, 'spoolStats' | 'streams'>;
  /** Requests for a QR image held until its render ends. */
  waitingForRenders(): number;
}): ApiMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Counted in plain maps on the request path and handed to prom-client at scrape time: a
  // labelled prom-client increment costs about as much as the rest of a cached redirect's work.
  const requestCounts = new Map<
    string,
    { method: string; route: string; status: string; n: number }
  >();
  const redirectCounts = new Map<string, { n: number }>();
  new Counter({
    name: 'linkqr_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const { n, ...labels } of requestCounts.values()) if (n > 0) this.inc(labels, n);
    },
  });
  const latency = new LocalHistogram(
    'linkqr_http_request_duration_seconds',
    'Time to answer an HTTP request, by method, route template and status',
    LATENCY_BUCKETS,
  );
  registry.registerMetric(latency.asMetric());
  new Counter({
    name: 'linkqr_redirects_total',
    help: 'Redirects served to visitors, by kind (link, qr, rotator)',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.reset();
      for (const [kind, { n }] of redirectCounts) if (n > 0) this.inc({ kind }, n);
    },
  });
  const backlog = new Gauge({
    name: 'linkqr_visit_backlog',
    help: 'Click entries queued in the Redis streams and not yet stored (an entry holds the clicks one API process sent in one turn)',
    registers,
  });
  const pending = new Gauge({
    name: 'linkqr_visit_pending',
    help: 'Click entries a drainer has read but not yet acknowledged',
    registers,
  });
  new Gauge({
    name: 'linkqr_visit_drain_lag_seconds',
    help: 'Age of the oldest visit not yet stored (0 when the backlog is empty)',
    registers,
    async collect() {
      const now = Date.now();
      try {
        // Summed over the partitions; the lag is the oldest partition's.
        const parts = await Promise.all(
          deps.visits.streams.map((stream) =>
            Promise.all([
              deps.redis.xlen(stream),
              deps.redis.xrange(stream, '-', '+', 'COUNT', 1),
              // No group yet (no worker ever ran): nothing is pending.
              deps.redis.xpending(stream, DRAINER_GROUP).catch(() => [0]),
            ]),
          ),
        );
        backlog.set(parts.reduce((sum, [length]) => sum + length, 0));
        pending.set(parts.reduce((sum, [, , s]) => sum + Number((s as unknown[])[0] ?? 0), 0));
        this.set(Math.max(0, ...parts.map(([, oldest]) => ageOfId(oldest[0]?.[0], now))) / 1000);
      } catch {
        // Redis unreachable: the scrape still answers; `up`-style alerts come from /readyz.
      }
    },
  });
  new Gauge({
    name: 'linkqr_visit_spooled',
    help: 'Clicks waiting in this process for Redis or MongoDB (the in-process spool)',
    registers,
    collect() {
      this.set(deps.visits.spoolStats().spooled);
    },
  });
  new Counter({
    name: 'linkqr_visits_lost_total',
    help: 'Clicks dropped because the in-process spool was full (or still held at shutdown)',
    registers,
    collect() {
      this.reset();
      this.inc(deps.visits.spoolStats().lost);
    },
  });
  new Gauge({
    name: 'linkqr_qr_image_requests_waiting',
    help: 'Requests for a QR image held until its render ends (QR_IMAGE_WAIT_MS)',
    registers,
    collect() {
      this.set(deps.waitingForRenders());
    },
  });
  new Gauge({
    name: 'linkqr_qr_queue_jobs',
    help: 'QR render jobs by state (waiting, prioritized, active, delayed, failed)',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      try {
        const counts = await deps.qrQueue.counts();
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      } catch {
        // As above: keep the last values while Redis is away.
      }
    },
  });
  const processRegistry = startProcessMetrics();

  const counters = new Map<string, (seconds: number) => void>();

  function redirectCountOf(kind: string): { n: number } {
    let counted = redirectCounts.get(kind);
    if (!counted) {
      counted = { n: 0 };
      redirectCounts.set(kind, counted);
    }
    return counted;
  }

  function counter(method: string, route: string, statusCode: number): (seconds: number) => void {
    const status = String(statusCode);
    const key = `${method} ${status} ${route}`;
    const known = counters.get(key);
    if (known) return known;
    const counted = { method, route, status, n: 0 };
    requestCounts.set(key, counted);
    const timer = latency.recorder({ method, route, status });
    const kind = REDIRECT_ROUTES[route];
    const redirects =
      kind && statusCode === 302 && method !== 'HEAD' ? redirectCountOf(kind) : undefined;
    const record = (seconds: number) => {
      counted.n += 1;
      if (redirects) redirects.n += 1;
      timer(seconds);
    };
    counters.set(key, record);
    return record;
  }

  function count(method: string, route: string, statusCode: number, seconds: number): void {
    counter(method, route, statusCode)(seconds);
  }

  const observe: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      // Refused before routing (401, 429, 404): grouped by side, so floods stay visible.
      const route = routeTemplateOf(res) ?? (req.originalUrl.startsWith('/api/') ? '/api/*' : '*');
      count(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  return {
    observe,
    count,
    counter,
    async render() {
      const parts = await Promise.all([processRegistry.metrics(), registry.metrics()]);
      return { contentType: registry.contentType, body: parts.join('\n') };
    },
  };
}
