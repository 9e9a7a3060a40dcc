import { Router } from 'express';
import Joi from 'joi';
import type { AppDeps } from '../deps';
import { endpoint } from '../shared/http/endpoint';
import { record } from '../shared/http/responses';
import { pingMongo } from '../shared/infra/mongo';
import { probe } from '../shared/infra/probe';

const state = Joi.string().valid('up', 'down');
const readiness = record({
  status: Joi.string().valid('ready', 'unavailable'),
  mongodb: state,
  redis: state,
  clicks: record({
    spooled: Joi.number().integer().min(0).description('clicks waiting in this process for Redis'),
    lost: Joi.number().integer().min(0).description('clicks dropped since start (spool full)'),
  }),
});

const probes = {
  live: endpoint({
    tag: 'Operations',
    summary: 'Liveness: the process answers',
    responses: {
      200: {
        description: 'Alive',
        schema: record({ status: Joi.string().valid('ok'), uptime: Joi.number().integer() }),
      },
    },
  }),
  ready: endpoint({
    tag: 'Operations',
    summary: 'Readiness: MongoDB and Redis answer',
    responses: {
      200: { description: 'Ready', schema: readiness },
      503: { description: 'A dependency is down', schema: readiness },
    },
  }),
};

/** Liveness and readiness probes: outside /api, no key, no rate limit. */
export function healthRouter({ redis, visits }: AppDeps): Router {
  const router = Router();

  router.get('/healthz', probes.live, (_req, res) => {
    res.json({ status: 'ok', uptime: Math.round(process.uptime()) });
  });

  router.get('/readyz', probes.ready, async (_req, res) => {
    const [mongodb, redisState] = await Promise.all([probe(pingMongo), probe(() => redis.ping())]);
    const ready = mongodb === 'up' && redisState === 'up';
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'unavailable',
      mongodb,
      redis: redisState,
      clicks: visits.spoolStats(),
    });
  });

  return router;
}
