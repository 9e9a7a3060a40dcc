import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../../src/shared/infra/logger';
import { formatDateTime } from '../../src/shared/format/dates';
import { Webhook, WebhookDelivery, type WebhookRecord } from '../../src/webhooks/webhook.model';
import {
  decryptSecret,
  SIGNATURE_HEADER,
  signatureHeader,
} from '../../src/webhooks/webhook-secret';
import {
  parseWebhookUrl,
  resolveWebhookTarget,
  WebhookTargetError,
  type TargetPolicy,
} from '../../src/webhooks/webhook-target';
import type { WebhookJob } from '../../src/webhooks/webhooks.jobs';
import { postWebhook, WEBHOOK_TIMEOUT_MS } from './webhook-post';

/** A webhook whose deliveries keep failing this long, without one success, is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;

/**
 * A target that answers nothing holds a delivery slot for the whole time-out on every attempt
 * (and may be someone else's server our POSTs are aimed at): this many time-outs in a row, with
 * no answer at all between them, disable the webhook without waiting the three days (M7).
 */
export const DISABLE_AFTER_TIMEOUTS = 5;

export interface WebhookDeliveryDeps {
  secretKey: Buffer | undefined;
  policy: TargetPolicy;
  logger: Logger;
  timeoutMs?: number;
}

export type WebhookOutcome = 'delivered' | 'skipped';

interface Attempt {
  status: number | null;
  error: string | null;
  /** Retrying cannot help (the target is refused by the address policy). */
  permanent: boolean;
  /** No answer within the time-out. */
  timedOut?: boolean;
}

function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; cause?: { name?: string } };
  return e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError';
}

async function attempt(hook: WebhookRecord, job: Job<WebhookJob>, deps: WebhookDeliveryDeps) {
  const { event, created, data } = job.data;
  const body = JSON.stringify({ event, created, data });
  let secret: string;
  try {
    secret = decryptSecret(hook.secret, deps.secretKey as Buffer);
  } catch {
    const error =
      'the secret cannot be decrypted with this WEBHOOK_SECRET_KEY (changed or lost): restore the old key, or delete and add the webhook again';
    return { status: null, error, permanent: true } satisfies Attempt;
  }
  try {
    const url = parseWebhookUrl(hook.url);
    const addresses = await resolveWebhookTarget(url, deps.policy);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'linkqr-webhooks/1',
      'linkqr-event': event,
      'linkqr-delivery': String(job.id),
      [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(
        secret,
        body,
        Math.floor(Date.now() / 1000),
      ),
    };
    const status = await postWebhook(url, addresses, headers, body, deps.timeoutMs);
    const ok = status >= 200 && status < 300;
    return { status, error: ok ? null : `HTTP ${status}`, permanent: false } satisfies Attempt;
  } catch (err) {
    if (isTimeout(err)) {
      const seconds = (deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000;
      const error = `no answer within ${seconds} s (timed out)`;
      return { status: null, error, permanent: false, timedOut: true } satisfies Attempt;
    }
    const code = (err as { code?: string }).code;
    const error =
      err instanceof WebhookTargetError
        ? err.message
        : `request failed (${code ?? (err as Error).name})`;
    return { status: null, error, permanent: err instanceof WebhookTargetError } satisfies Attempt;
  }
}

/** Counts a time-out in a row, or starts the count again after an answer; answers the count. */
async function countTimeouts(hook: WebhookRecord, timedOut: boolean): Promise<number> {
  if (!timedOut) {
    if (hook.consecutiveTimeouts)
      await Webhook.updateOne({ id: hook.id }, { $set: { consecutiveTimeouts: 0 } });
    return 0;
  }
  const updated = await Webhook.findOneAndUpdate(
    { id: hook.id },
    { $inc: { consecutiveTimeouts: 1 } },
    { returnDocument: 'after' },
  ).lean();
  return updated?.consecutiveTimeouts ?? 1;
}

/**
 * Records a failure; disables the webhook once it has failed for DISABLE_AFTER_MS, or timed out
 * DISABLE_AFTER_TIMEOUTS times in a row.
 */
async function markFailing(hook: WebhookRecord, result: Attempt, now: Date): Promise<boolean> {
  const error = result.error ?? 'failed';
  const since = hook.failingSince ?? now;
  if (!hook.failingSince) {
    await Webhook.updateOne({ id: hook.id, failingSince: null }, { $set: { failingSince: now } });
  }
  const timeouts = await countTimeouts(hook, result.timedOut === true);
  let reason: string | undefined;
  if (timeouts >= DISABLE_AFTER_TIMEOUTS) {
    reason = `${timeouts} deliveries in a row got no answer in time; last: ${error}`;
  } else if (now.getTime() - since.getTime() >= DISABLE_AFTER_MS) {
    reason = `deliveries failed since ${formatDateTime(since)} without a success; last: ${error}`;
  }
  if (!reason) return false;
  await Webhook.updateOne({ id: hook.id }, { $set: { disabledAt: now, disabledReason: reason } });
  return true;
}

/**
 * Delivers one event to one webhook, signed, and records the attempt. A failure is thrown so
 * BullMQ retries with exponential backoff; a refused target or a disabled webhook is not retried.
 */
export function createWebhookDeliveryProcessor(deps: WebhookDeliveryDeps) {
  return async (job: Job<WebhookJob>): Promise<WebhookOutcome> => {
    const hook = await Webhook.findOne({ id: job.data.webhookId }).lean<WebhookRecord>();
    if (!hook || hook.disabledAt) return 'skipped';
    if (!deps.secretKey) throw new UnrecoverableError('WEBHOOK_SECRET_KEY is not set');
    const started = performance.now();
    const result = await attempt(hook, job, deps);
    const now = new Date();
    await WebhookDelivery.create({
      webhookId: hook.id,
      deliveryId: String(job.id),
      event: job.data.event,
      attempt: job.attemptsMade + 1,
      status: result.status,
      ok: result.error === null,
      error: result.error,
      durationMs: Math.round(performance.now() - started),
      at: now,
    });
    if (result.error === null) {
      if (hook.failingSince || hook.consecutiveTimeouts)
        await Webhook.updateOne(
          { id: hook.id },
          { $set: { failingSince: null, consecutiveTimeouts: 0 } },
        );
      return 'delivered';
    }
    const disabled = await markFailing(hook, result, now);
    if (disabled || result.permanent) throw new UnrecoverableError(result.error);
    throw new Error(result.error);
  };
}
