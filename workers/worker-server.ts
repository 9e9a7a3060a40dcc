import express from 'express';
import type { RedisClient } from '../src/shared/infra/redis-connections';
import { listen, type RunningServer } from '../src/server';
import { notFound, unauthorized } from '../src/shared/errors/app-error';
import { failureBody } from '../src/shared/errors/error-handler';
import { pingMongo } from '../src/shared/infra/mongo';
import { probe } from '../src/shared/infra/probe';
import { carriesToken } from '../src/shared/metrics/metrics.routes';
import type { WorkerMetrics } from './worker-metrics';

export interface WorkerServerDeps {
  port: number;
  host?: string;
  metrics: WorkerMetrics;
  metricsToken: string | undefined;
  redis: RedisClient;
  /** False once the QR render worker has stopped. */
  rendering: () => boolean;
}

/**
 * The worker's HTTP side on WORKER_PORT: `/healthz` (200 while it can do its work: MongoDB and
 * Redis answer and the render worker runs; 503 otherwise) for the container health check, and
 * `/metrics` for Prometheus.
 */
export function startWorkerServer(deps: WorkerServerDeps): Promise<RunningServer> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', async (_req, res) => {
    const [mongodb, redis] = await Promise.all([probe(pingMongo), probe(() => deps.redis.ping())]);
    const qrWorker = deps.rendering() ? 'up' : 'down';
    const ok = mongodb === 'up' && redis === 'up' && qrWorker === 'up';
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'unavailable', mongodb, redis, qrWorker });
  });
  app.get('/metrics', async (req, res) => {
    if (
      deps.metricsToken !== undefined &&
      !carriesToken(req.headers.authorization, deps.metricsToken)
    ) {
      const refusal = unauthorized('Metrics require Authorization: Bearer <METRICS_TOKEN>');
      res.status(refusal.status).json(failureBody(refusal));
      return;
    }
    const { contentType, body } = await deps.metrics.render();
    res.type(contentType).send(body);
  });
  app.use((_req, res) => {
    res.status(404).json(failureBody(notFound()));
  });
  return listen(app, deps.port, deps.host);
}
