import { Link, type LinkRecord } from '../links/link.model';
import { originsOf } from '../links/link-domains';
import { shortUrlOf } from '../links/short-url';
import { formatDateTime } from '../shared/format/dates';
import { VisitBucket } from '../visits/visit.model';
import { columnsOf, type BucketDoc } from '../visits/visit-bucket-form';
import { getClickCounts } from '../visits/visits.service';
import type { ClickLabels, VisitTarget } from '../visits/visits.types';
import { analyticsReadPreference } from '../shared/infra/mongo';
import type { ExportRow } from './export-stream';

export const LINK_COLUMNS = [
  'id',
  'alias',
  'shorturl',
  'longurl',
  'title',
  'clicks',
  'date',
] as const;
export const VISIT_COLUMNS = ['time', 'country', 'referrer', 'browser', 'os', 'bot'] as const;

const CHUNK = 500;

/**
 * Every link of a user, oldest first, with its clicks. Read in batches that each are a query of
 * their own, resuming after the last id on the {userId, id} index: no cursor stays open while a
 * slow client reads (a server cursor idle for 10 minutes is dropped), and a batch may go to a
 * secondary (`MONGODB_READ_PREFERENCE`).
 */
export async function* linkRows(
  userId: number,
  publicUrl: string,
  batch = CHUNK,
): AsyncGenerator<ExportRow> {
  let after = 0;
  for (;;) {
    const chunk = await Link.find({ userId, id: { $gt: after } })
      .sort({ id: 1 })
      .limit(batch)
      .read(analyticsReadPreference())
      .lean<LinkRecord[]>();
    if (chunk.length === 0) return;
    after = (chunk[chunk.length - 1] as LinkRecord).id;
    const [origins, clicks] = await Promise.all([
      originsOf(chunk),
      getClickCounts(
        'link',
        chunk.map((l) => l.id),
        analyticsReadPreference(),
      ),
    ]);
    for (const link of chunk) {
      yield {
        id: link.id,
        alias: link.alias,
        shorturl: shortUrlOf(link, origins, publicUrl),
        longurl: link.url,
        title: link.title,
        clicks: clicks.get(link.id) ?? 0,
        date: formatDateTime(link.createdAt),
      };
    }
    if (chunk.length < batch) return;
  }
}

/**
 * The stored visits of a link or QR code within [from, to), bucket by bucket (one drained batch
 * each, in the order they were stored). Never the visitor hash or anything address-derived.
 */
export async function* visitRows(
  target: VisitTarget,
  range: { from?: Date; to?: Date },
  batch = 20,
): AsyncGenerator<ExportRow> {
  const filter: Record<string, unknown> = { kind: target.kind, targetId: target.id };
  if (range.from) filter.to = { $gte: range.from };
  if (range.to) filter.from = { $lt: range.to };
  const from = range.from?.getTime() ?? -Infinity;
  const to = range.to?.getTime() ?? Infinity;
  // Resumable batches on the {kind, targetId, from} index, ties broken by _id: no open cursor.
  let last: { from: Date; _id: string } | undefined;
  for (;;) {
    const page: Record<string, unknown> = last
      ? {
          ...filter,
          $or: [{ from: { $gt: last.from } }, { from: last.from, _id: { $gt: last._id } }],
        }
      : filter;
    const buckets = await VisitBucket.find(page)
      .sort({ from: 1, _id: 1 })
      .limit(batch)
      .read(analyticsReadPreference())
      .lean<BucketDoc[]>();
    if (buckets.length === 0) return;
    const end = buckets[buckets.length - 1] as BucketDoc;
    last = { from: end.from, _id: end._id };
    yield* rowsOf(buckets, from, to);
    if (buckets.length < batch) return;
  }
}

/** Rows of buckets of either stored form (see visit-bucket-form.ts). */
function* rowsOf(buckets: readonly BucketDoc[], from: number, to: number): Generator<ExportRow> {
  for (const bucket of buckets) {
    const { at, label, labels } = columnsOf(bucket);
    for (let i = 0; i < at.length; i += 1) {
      const ms = at[i] as number;
      if (ms < from || ms >= to) continue;
      const l = labels[label[i] as number] as ClickLabels;
      yield {
        time: new Date(ms).toISOString(),
        country: l.country,
        referrer: l.referrer,
        browser: l.browser,
        os: l.os,
        bot: l.bot,
      };
    }
  }
}
