import type { Logger } from '../shared/infra/logger';
import { Link } from '../links/link.model';
import { QrCode } from '../qr-codes/qr-code.model';
import type { VisitBatchHook } from '../visits/visit-apply';
import { columnsOf, type BucketDoc } from '../visits/visit-bucket-form';
import type { VisitKind } from '../visits/visits.types';
import type { WebhookEvents } from './webhooks.jobs';

/** What a `clicks` delivery carries per link or QR code of the batch (bots left out). */
export interface ClickSummary {
  type: VisitKind;
  id: number;
  clicks: number;
  first: string;
  last: string;
  countries: Record<string, number>;
}

export function summariseClicks(buckets: readonly BucketDoc[]): ClickSummary[] {
  // Times compared as numbers and formatted once per target, not once per click.
  const byTarget = new Map<string, ClickSummary & { firstMs: number; lastMs: number }>();
  for (const bucket of buckets) {
    const key = `${bucket.kind}:${bucket.targetId}`;
    const columns = columnsOf(bucket);
    for (let i = 0; i < columns.at.length; i += 1) {
      const v = columns.labels[columns.label[i] as number];
      if (!v || v.bot) continue;
      const at = columns.at[i] as number;
      let s = byTarget.get(key);
      if (!s) {
        s = {
          type: bucket.kind,
          id: bucket.targetId,
          clicks: 0,
          first: '',
          last: '',
          countries: {},
          firstMs: at,
          lastMs: at,
        };
        byTarget.set(key, s);
      }
      s.clicks += 1;
      if (at < s.firstMs) s.firstMs = at;
      if (at > s.lastMs) s.lastMs = at;
      s.countries[v.country] = (s.countries[v.country] ?? 0) + 1;
    }
  }
  return [...byTarget.values()].map(({ firstMs, lastMs, ...s }) => ({
    ...s,
    first: new Date(firstMs).toISOString(),
    last: new Date(lastMs).toISOString(),
  }));
}

async function ownersOf(kind: VisitKind, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const filter = { id: { $in: ids } };
  const docs = kind === 'link' ? await Link.find(filter).lean() : await QrCode.find(filter).lean();
  return new Map(docs.map((d) => [d.id, d.userId]));
}

/**
 * The drainer's hook for the `clicks` event: one delivery per drained batch and webhook with the
 * batch's summaries of that owner's links and QR codes, never one call per click. While nobody
 * subscribes it costs a batch nothing but a cache lookup.
 */
export function clicksWebhookHook(events: WebhookEvents, logger: Logger): VisitBatchHook {
  return async (buckets) => {
    try {
      // Asked first: while nobody subscribes, a batch is not summarised click by click.
      if (!(await events.subscribed('clicks'))) return;
      const summaries = summariseClicks(buckets);
      if (summaries.length === 0) return;
      const idsOf = (kind: VisitKind) => summaries.filter((s) => s.type === kind).map((s) => s.id);
      const [links, qrs] = await Promise.all([
        ownersOf('link', idsOf('link')),
        ownersOf('qr', idsOf('qr')),
      ]);
      const perUser = new Map<number, ClickSummary[]>();
      for (const s of summaries) {
        const owner = (s.type === 'link' ? links : qrs).get(s.id);
        if (owner === undefined) continue;
        perUser.set(owner, [...(perUser.get(owner) ?? []), s]);
      }
      await Promise.all(
        [...perUser].map(([userId, clicks]) => events.emit(userId, 'clicks', { clicks })),
      );
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'clicks webhook skipped for a batch');
    }
  };
}
