import { Counter, Histogram, Registry } from 'prom-client';
import { startProcessMetrics } from '../src/shared/metrics/process-metrics';
import type { QrRenderObserver } from './qr-render/qr-render.worker';
import type { WebhookDeliveryObserver } from './webhooks/webhook-delivery.worker';

export interface WorkerMetrics {
  qrRenders: QrRenderObserver;
  webhookDeliveries: WebhookDeliveryObserver;
  render(): Promise<{ contentType: string; body: string }>;
}

/** The worker's own metrics: QR renders, failures and render time, webhook deliveries, plus Node's process metrics. */
export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  const registers = [registry];
  const renders = new Counter({
    name: 'linkqr_qr_renders_total',
    help: 'QR render jobs completed, by outcome (ready, stale, already-ready)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const failures = new Counter({
    name: 'linkqr_qr_render_failures_total',
    help: 'QR render attempts that failed; final="true" when no retry follows',
    labelNames: ['final'] as const,
    registers,
  });
  const renderTime = new Histogram({
    name: 'linkqr_qr_render_duration_seconds',
    help: 'Time from picking a render job to storing its images',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const deliveries = new Counter({
    name: 'linkqr_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (delivered, skipped, failed)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const processRegistry = startProcessMetrics();
  return {
    qrRenders: {
      completed(outcome, seconds) {
        renders.inc({ outcome });
        if (outcome === 'ready') renderTime.observe(seconds);
      },
      failed(final) {
        failures.inc({ final: String(final) });
      },
    },
    webhookDeliveries: {
      attempted(outcome) {
        deliveries.inc({ outcome });
      },
    },
    async render() {
      const parts = await Promise.all([processRegistry.metrics(), registry.metrics()]);
      return { contentType: registry.contentType, body: parts.join('\n') };
    },
  };
}
