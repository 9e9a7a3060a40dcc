import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { unauthorized } from '../errors/app-error';
import { failureBody } from '../errors/error-handler';
import { endpoint } from '../http/endpoint';
import { failureJson } from '../http/responses';
import type { ApiMetrics } from './api-metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when the header carries `Bearer <token>`; compared in constant time. */
export function carriesToken(header: string | undefined, token: string): boolean {
  const sent = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1];
  return sent !== undefined && timingSafeEqual(digest(sent), digest(token));
}

const scrape = endpoint({
  tag: 'Operations',
  summary: 'Prometheus metrics',
  description:
    'Prometheus text format. When `METRICS_TOKEN` is set, send `Authorization: Bearer <METRICS_TOKEN>`.',
  responses: {
    200: { description: 'The metrics', media: ['text/plain'] },
    401: { description: 'METRICS_TOKEN is set and was not sent', schema: failureJson },
  },
});

/** `GET /metrics`, outside /api: no API key nor rate limit, but the metrics token when set. */
export function metricsRouter(metrics: ApiMetrics, token: string | undefined): Router {
  const router = Router();
  router.get('/metrics', scrape, async (req, res) => {
    if (token !== undefined && !carriesToken(req.headers.authorization, token)) {
      // JSON like /api (scrapers and operators read it), not the visitors' HTML error page.
      const refusal = unauthorized('Metrics require Authorization: Bearer <METRICS_TOKEN>');
      res.status(refusal.status).json(failureBody(refusal));
      return;
    }
    const { contentType, body } = await metrics.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  });
  return router;
}
