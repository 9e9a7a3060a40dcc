import type Joi from 'joi';
import { Campaign } from '../../src/campaigns/campaign.model';
import { campaignCreateSchema } from '../../src/campaigns/campaigns.schemas';
import { Channel, ChannelItem, type ChannelItemType } from '../../src/channels/channel.model';
import { channelCreateSchema } from '../../src/channels/channels.schemas';
import { ImportedItem } from '../../src/imports/import.model';
import { Overlay } from '../../src/overlays/overlay.model';
import { overlayCreateSchema } from '../../src/overlays/overlays.schemas';
import { checkTag } from '../../src/pixels/pixel-tags';
import { Pixel } from '../../src/pixels/pixel.model';
import { pixelCreateSchema, type PixelCreate } from '../../src/pixels/pixels.schemas';
import { isDuplicateKeyError } from '../../src/shared/db/duplicate-key';
import { AppError, validation } from '../../src/shared/errors/app-error';
import { itemValidator } from '../../src/shared/http/bulk';
import { nextId } from '../../src/shared/ids/counter.model';
import { SplashPage } from '../../src/splash/splash-page.model';
import { splashCreateSchema } from '../../src/splash/splash.schemas';
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

type Fields = Record<string, unknown>;

interface RecordKind {
  model: Creatable;
  counter: string;
  /**
   * The record's fields as its create route would store them, or why that route would refuse
   * them: a record comes from a file its importer may have written or from another service, and
   * what reaches visitor pages (a pixel's tag, a splash page's link) is checked where it enters.
   */
  valid(data: Fields): Fields | AppError;
  /** Stored fields no route takes but an import keeps when sound (a count of responses). */
  kept?: readonly string[];
}

/** Checks the fields the create route takes (`fields`) with its schema; `""` and null are unset. */
function validBy(schema: Joi.ObjectSchema, fields: readonly string[]) {
  const check = itemValidator<Fields>(schema);
  return (data: Fields) => {
    const input: Fields = {};
    for (const field of fields)
      if (data[field] !== undefined && data[field] !== null && data[field] !== '')
        input[field] = data[field];
    return check(input);
  };
}

const validPixel = itemValidator<PixelCreate>(pixelCreateSchema);

/** The kinds of record a linkqr export carries besides links and domains, as created here. */
const RECORD_KINDS: Record<string, RecordKind> = {
  pixel: {
    model: Pixel,
    counter: 'pixels',
    valid: (data) => {
      const input = validPixel({ type: data.type, name: data.name, tag: data.tag });
      if (input instanceof AppError) return input;
      // The tag's format for its type, as `POST /api/pixel/add` checks it (pixel-tags.ts).
      const tag = checkTag(input.type, input.tag);
      return tag.ok ? { ...input, tag: tag.tag } : validation(tag.message, 'tag');
    },
  },
  splash: {
    model: SplashPage,
    counter: 'splash',
    valid: validBy(splashCreateSchema, [
      'name',
      'title',
      'message',
      'image',
      'link',
      'button',
      'counter',
    ]),
  },
  overlay: {
    model: Overlay,
    counter: 'overlays',
    valid: validBy(overlayCreateSchema, [
      'type',
      'name',
      'message',
      'button',
      'link',
      'color',
      'background',
      'position',
    ]),
    kept: ['responses'],
  },
  campaign: {
    model: Campaign,
    counter: 'campaigns',
    valid: validBy(campaignCreateSchema, ['name', 'slug', 'public']),
  },
  channel: {
    model: Channel,
    counter: 'channels',
    valid: validBy(channelCreateSchema, ['name', 'description', 'color', 'starred']),
  },
};

/** The kept fields that are sound: a date, a count. */
function keptOf(data: Fields, kind: RecordKind): Fields {
  const out: Fields = {};
  if (data.createdAt instanceof Date && !Number.isNaN(data.createdAt.getTime()))
    out.createdAt = data.createdAt;
  for (const field of kind.kept ?? []) {
    const value = data[field];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) out[field] = value;
  }
  return out;
}

/** Channel assignments name their item by the kind it is. */
const CHANNEL_ITEM_KINDS: Record<ChannelItemType, string> = { links: 'link', qr: 'qr', bio: 'bio' };
const isChannelItemType = (type: unknown): type is ChannelItemType =>
  typeof type === 'string' && Object.hasOwn(CHANNEL_ITEM_KINDS, type);

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
    const type = item.data.type;
    const itemKind = isChannelItemType(type) ? CHANNEL_ITEM_KINDS[type] : '';
    const [target] = (
      await targetsOf(userId, origin, itemKind, [String(item.data.itemId)])
    ).values();
    if (channel === undefined || target === undefined || !isChannelItemType(type)) {
      report.skipped += 1;
      report.note(label, 'channel assignment of a record that was not imported: skipped');
      return;
    }
    const assignedAt = item.data.assignedAt;
    await ChannelItem.create({
      channelId: channel,
      type,
      itemId: target,
      userId,
      ...(assignedAt instanceof Date && !Number.isNaN(assignedAt.getTime()) ? { assignedAt } : {}),
    });
    report.imported += 1;
    return;
  }
  const kind = RECORD_KINDS[item.type];
  if (!kind) {
    report.skipped += 1;
    report.note(label, `unknown record type ${item.type}: skipped`);
    return;
  }
  const fields = kind.valid(item.data);
  if (fields instanceof AppError) {
    report.failed += 1;
    report.note(label, fields.message);
    return;
  }
  const targetId = await nextId(kind.counter);
  const doc = { ...fields, ...keptOf(item.data, kind), id: targetId, userId };
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
