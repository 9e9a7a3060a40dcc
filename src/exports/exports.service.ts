import { Link, type LinkRecord } from '../links/link.model';
import { originsOf } from '../links/link-domains';
import { shortUrlOf } from '../links/short-url';
import { formatDateTime } from '../shared/format/dates';
import { VisitBucket } from '../visits/visit.model';
import { getClickCounts } from '../visits/visits.service';
import type { VisitTarget } from '../visits/visits.types';
import { inChunks, type ExportRow } from './export-stream';

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

/** Every link of a user, oldest first, with its clicks: one totals lookup per 500 links. */
export async function* linkRows(userId: number, publicUrl: string): AsyncGenerator<ExportRow> {
  const links = Link.find({ userId })
    .sort({ id: 1 })
    .lean<LinkRecord[]>()
    .cursor({ batchSize: CHUNK });
  for await (const chunk of inChunks<LinkRecord>(links, CHUNK)) {
    const [origins, clicks] = await Promise.all([
      originsOf(chunk),
      getClickCounts(
        'link',
        chunk.map((l) => l.id),
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
  }
}

/**
 * The stored visits of a link or QR code within [from, to), bucket by bucket (one drained batch
 * each, in the order they were stored). Never the visitor hash or anything address-derived.
 */
export async function* visitRows(
  target: VisitTarget,
  range: { from?: Date; to?: Date },
): AsyncGenerator<ExportRow> {
  const filter: Record<string, unknown> = { kind: target.kind, targetId: target.id };
  if (range.from) filter.to = { $gte: range.from };
  if (range.to) filter.from = { $lt: range.to };
  const from = range.from?.getTime() ?? -Infinity;
  const to = range.to?.getTime() ?? Infinity;
  const buckets = VisitBucket.find(filter).sort({ from: 1 }).lean().cursor({ batchSize: 1 });
  for await (const bucket of buckets) {
    for (const v of bucket.visits) {
      const at = v.at.getTime();
      if (at < from || at >= to) continue;
      yield {
        time: v.at.toISOString(),
        country: v.country,
        referrer: v.referrer,
        browser: v.browser,
        os: v.os,
        bot: v.bot,
      };
    }
  }
}
