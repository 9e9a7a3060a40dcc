import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { loadConfig } from '../src/config';
import type { RunningServer } from '../src/server';
import { standaloneRedis, waitForRedis } from '../src/shared/infra/redis-connections';
import { createWorkerMetrics } from '../workers/worker-metrics';
import { startWorkerServer } from '../workers/worker-server';
import { baseEnv } from './support/environment';
import { request } from './support/http';
import { sample } from './support/metrics';

describe('the worker HTTP server (WORKER_PORT)', () => {
  let redis: Redis;
  let rendering = true;
  const metrics = createWorkerMetrics();
  const token = 'worker-metrics-token-0123456789';
  let server: RunningServer;
  let url: string;

  before(async () => {
    redis = standaloneRedis(loadConfig(baseEnv()).redisUrl, 'request');
    redis.on('error', () => undefined);
    await waitForRedis(redis);
    server = await startWorkerServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      metricsToken: token,
      redis,
      rendering: () => rendering,
    });
    url = `http://127.0.0.1:${server.port}`;
  });
  after(async () => {
    await server.close();
    redis.disconnect();
  });

  it('is healthy while MongoDB, Redis and the render worker are', async () => {
    rendering = true;
    const res = await request(url, '/healthz');
    expect([res.status, res.body]).to.deep.equal([
      200,
      { status: 'ok', mongodb: 'up', redis: 'up', qrWorker: 'up' },
    ]);
  });

  it('answers 503 once the render worker has stopped', async () => {
    rendering = false;
    const res = await request(url, '/healthz');
    expect(res.status).to.equal(503);
    expect(res.body).to.include({ status: 'unavailable', qrWorker: 'down' });
    rendering = true;
  });

  it('counts renders, failures and render time in /metrics, behind the token', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const before = (await request(url, '/metrics', { headers: auth })).text;
    metrics.qrRenders.completed('ready', 0.12);
    metrics.qrRenders.failed(true);
    const res = await request(url, '/metrics', { headers: auth });
    expect(res.status).to.equal(200);
    const ready = { outcome: 'ready' };
    expect(sample(res.text, 'linkqr_qr_renders_total', ready)).to.equal(
      sample(before, 'linkqr_qr_renders_total', ready) + 1,
    );
    expect(sample(res.text, 'linkqr_qr_render_failures_total', { final: 'true' })).to.equal(
      sample(before, 'linkqr_qr_render_failures_total', { final: 'true' }) + 1,
    );
    expect(sample(res.text, 'linkqr_qr_render_duration_seconds_count')).to.equal(
      sample(before, 'linkqr_qr_render_duration_seconds_count') + 1,
    );
    expect(res.text).to.match(/^nodejs_eventloop_lag_seconds \d/m);
    expect((await request(url, '/metrics')).status).to.equal(401);
  });

  it('counts webhook delivery attempts by outcome in /metrics', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const before = (await request(url, '/metrics', { headers: auth })).text;
    metrics.webhookDeliveries.attempted('delivered');
    metrics.webhookDeliveries.attempted('failed');
    metrics.webhookDeliveries.attempted('failed');
    const res = await request(url, '/metrics', { headers: auth });
    for (const [outcome, added] of [
      ['delivered', 1],
      ['failed', 2],
    ] as const) {
      expect(sample(res.text, 'linkqr_webhook_deliveries_total', { outcome })).to.equal(
        sample(before, 'linkqr_webhook_deliveries_total', { outcome }) + added,
      );
    }
  });
});
