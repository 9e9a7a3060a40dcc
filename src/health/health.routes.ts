import { Router } from 'express';
import type { AppDeps } from '../deps';
import { pingMongo } from '../shared/infra/mongo';

async function probe(check: () => Promise<unknown>, timeoutMs = 2000): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness and readiness probes: outside /api, no key, no rate limit. */
export function healthRouter({ redis, visits }: AppDeps): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptime: Math.round(process.uptime()) });
  });

  router.get('/readyz', async (_req, res) => {
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
