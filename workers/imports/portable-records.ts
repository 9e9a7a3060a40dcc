import { Campaign } from '../../src/campaigns/campaign.model';
import { Channel, ChannelItem } from '../../src/channels/channel.model';
import { BrandedDomain } from '../../src/domains/domain.model';
import { ImportedItem } from '../../src/imports/import.model';
import { Overlay } from '../../src/overlays/overlay.model';
import { Pixel } from '../../src/pixels/pixel.model';
import { isDuplicateKeyError } from '../../src/shared/db/duplicate-key';
import { nextId } from '../../src/shared/ids/counter.model';
import { SplashPage } from '../../src/splash/splash-page.model';
import { LINK_REFS, type LinkItem, type LinkRef, type RecordItem } from './sources/source';

/** What an import counts and reports. */
export interface ReportSink {
  imported: number;
  skipped: number;
  failed: number;
  note(item: string, message: string): void;
}

interface Creatable {
  create(doc: Record<string, unknown>): Promise<unknown>;
}

/** The kinds of record a linkqr export carries besides links, with their id counters. */
const RECORD_KINDS: Record<string, { model: Creatable; counter: string }> = {
  domain: { model: BrandedDomain, counter: 'domains' },
  pixel: { model: Pixel, counter: 'pixels' },
  splash: { model: SplashPage, counter: 'splash' },
  overlay: { model: Overlay, counter: 'overlays' },
  campaign: { model: Campaign, counter: 'campaigns' },
  channel: { model: Channel, counter: 'channels' },
};

/** Channel assignments name their item by the kind it is. */
const CHANNEL_ITEM_KINDS: Record<string, string> = { links: 'link', qr: 'qr', bio: 'bio' };

/** What the source's ids of one kind became here, for the ids asked. */
export async function targetsOf(
  userId: number,
  origin: string,
  kind: string,
  sourceIds: readonly string[],
): Promise<Map<string, number>> {
  if (!sourceIds.length) return new Map();
  const rows = await ImportedItem.find({
    userId,
    origin,
    kind,
    sourceId: { $in: [...sourceIds] },
  }).lean();
  return new Map(rows.map((r) => [r.sourceId, r.targetId]));
}

/** Points each link's references at the records they became here (null when that one is not). */
export async function resolveLinkRefs(userId: number, origin: string, links: LinkItem[]) {
  for (const [field, kind] of Object.entries(LINK_REFS) as Array<[LinkRef, string]>) {
    const wanted = links.flatMap((l) => {
      const ref = l.refs?.[field];
      return ref === undefined ? [] : Array.isArray(ref) ? ref : [ref];
    });
    const found = await targetsOf(userId, origin, kind, [...new Set(wanted)]);
    for (const link of links) {
      const ref = link.refs?.[field];
      if (ref === undefined) continue;
      link.fields ??= {};
      if (Array.isArray(ref)) link.fields[field] = ref.flatMap((id) => found.get(id) ?? []);
      else if (field === 'domainId') link.domainId = found.get(ref);
      else link.fields[field] = found.get(ref) ?? null;
      if (field !== 'pixelIds' && !Array.isArray(ref) && !found.has(ref))
        link.notes = [
          ...(link.notes ?? []),
          `${kind} ${ref} was not imported: its reference dropped`,
        ];
    }
  }
}

/** One record of another kind, stored under a new id; a taken host or slug skips it. */
async function importRecord(userId: number, origin: string, item: RecordItem, report: ReportSink) {
  const label = `${item.type} ${item.sourceId}`;
  if (item.type === 'channelItem') {
    const [channel] = (
      await targetsOf(userId, origin, 'channel', [String(item.data.channelId)])
    ).values();
    const itemKind = CHANNEL_ITEM_KINDS[String(item.data.type)] ?? '';
    const [target] = (
      await targetsOf(userId, origin, itemKind, [String(item.data.itemId)])
    ).values();
    if (channel === undefined || target === undefined) {
      report.skipped += 1;
      report.note(label, 'channel assignment of a record that was not imported: skipped');
      return;
    }
    await ChannelItem.create({ ...item.data, channelId: channel, itemId: target, userId });
    report.imported += 1;
    return;
  }
  const kind = RECORD_KINDS[item.type];
  if (!kind) {
    report.skipped += 1;
    report.note(label, `unknown record type ${item.type}: skipped`);
    return;
  }
  const targetId = await nextId(kind.counter);
  const doc = { ...item.data, id: targetId, userId };
  try {
    await kind.model.create(doc);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    report.skipped += 1;
    report.note(label, `${item.type} already exists here (a taken domain or slug): skipped`);
    return;
  }
  await ImportedItem.create({ userId, origin, kind: item.type, sourceId: item.sourceId, targetId });
  report.imported += 1;
}

/** Records of a linkqr export other than links, one by one, skipping those an earlier run made. */
export async function importRecords(
  userId: number,
  origin: string,
  items: RecordItem[],
  report: ReportSink,
): Promise<void> {
  for (const item of items) {
    const kind = item.type === 'channelItem' ? 'channelItem' : item.type;
    const done = await ImportedItem.exists({ userId, origin, kind, sourceId: item.sourceId });
    if (done) {
      report.skipped += 1;
      continue;
    }
    await importRecord(userId, origin, item, report);
    if (item.type === 'channelItem')
      await ImportedItem.create({ userId, origin, kind, sourceId: item.sourceId, targetId: 0 });
  }
}
