import { ImportedItem } from '../../src/imports/import.model';
import { withPlanSlot, type PlanLockDeps } from '../../src/plans/plan-lock';
import type { Plan } from '../../src/plans/plans.config';
import { planLimitReached, planRoom } from '../../src/plans/plans.service';
import { AppError } from '../../src/shared/errors/app-error';
import { itemValidator } from '../../src/shared/http/bulk';
import { Webhook } from '../../src/webhooks/webhook.model';
import { webhookCreateSchema, type WebhookCreate } from '../../src/webhooks/webhooks.schemas';
import { createWebhook, type WebhookServiceContext } from '../../src/webhooks/webhooks.service';
import type { ReportSink } from './portable-records';
import type { RecordItem } from './sources/source';

const validWebhook = itemValidator<WebhookCreate>(webhookCreateSchema);

/** A webhook the import created: the report names it and its new secret is shown once. */
export interface CreatedWebhook {
  item: string;
  id: number;
  url: string;
}

export interface WebhookImportContext {
  user: { id: number; status: string };
  origin: string;
  plans: readonly Plan[];
  locks: PlanLockDeps;
  webhooks: WebhookServiceContext;
  report: ReportSink & { webhooks: CreatedWebhook[] };
}

/**
 * Webhooks of a linkqr export. An export never carries a secret in clear, so each is created as
 * `POST /api/webhook/add` creates one (its URL checked by the same policy), with a new signing
 * secret that the import's report shows once; a webhook its owner had disabled stays disabled.
 */
export async function importWebhooks(items: RecordItem[], ctx: WebhookImportContext) {
  const { user, origin, report } = ctx;
  for (const item of items) {
    const label = `webhook ${item.sourceId}`;
    const kind = 'webhook';
    if (await ImportedItem.exists({ userId: user.id, origin, kind, sourceId: item.sourceId })) {
      report.skipped += 1;
      continue;
    }
    if (!ctx.webhooks.secretKey) {
      report.skipped += 1;
      report.note(label, 'webhooks need WEBHOOK_SECRET_KEY on this server: skipped, add it again');
      continue;
    }
    const input = validWebhook({ url: item.data.url, events: item.data.events });
    if (input instanceof AppError) {
      report.failed += 1;
      report.note(label, input.message);
      continue;
    }
    let created: { id: number } | AppError;
    try {
      created = await withPlanSlot(ctx.locks, ctx.plans, user, 'maxWebhooks', async () => {
        const room = await planRoom(ctx.plans, user, 'maxWebhooks', (userId) =>
          Webhook.countDocuments({ userId }),
        );
        if (room < 1) return planLimitReached(ctx.plans, user, 'maxWebhooks');
        return createWebhook(user.id, input, ctx.webhooks);
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      created = err;
    }
    if (created instanceof AppError) {
      report.failed += 1;
      report.note(label, created.message);
      continue;
    }
    if (item.data.disabledAt)
      await Webhook.updateOne(
        { id: created.id, userId: user.id },
        { $set: { disabledAt: new Date(), disabledReason: 'disabled in the source' } },
      );
    await ImportedItem.create({
      userId: user.id,
      origin,
      kind,
      sourceId: item.sourceId,
      targetId: created.id,
    });
    report.imported += 1;
    report.webhooks.push({ item: label, id: created.id, url: input.url });
    report.note(
      label,
      `imported as webhook ${created.id} with a new signing secret, shown once in this import's report (if it was missed: delete the webhook and add it again)`,
    );
  }
}
