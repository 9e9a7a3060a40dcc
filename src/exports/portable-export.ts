import type { Model } from 'mongoose';
import { Bio } from '../bio/bio.model';
import { Campaign } from '../campaigns/campaign.model';
import { Channel, ChannelItem } from '../channels/channel.model';
import { BrandedDomain } from '../domains/domain.model';
import { Link } from '../links/link.model';
import { Overlay } from '../overlays/overlay.model';
import { Pixel } from '../pixels/pixel.model';
import { QrCode } from '../qr-codes/qr-code.model';
import { SplashPage } from '../splash/splash-page.model';
import { Webhook } from '../webhooks/webhook.model';

/** Bumped when a reader of an older version could no longer read the records (docs/export-format.md). */
export const EXPORT_VERSION = 1;

/**
 * Each kind of record an export holds, in the order an import needs them (what is referenced
 * comes before what references it), with the stored fields that never leave: ids of this
 * database's internals, secrets, and a QR code's render state (rendered anew where imported).
 */
export const EXPORT_KINDS = [
  { type: 'domain', model: BrandedDomain, omit: [] },
  { type: 'pixel', model: Pixel, omit: [] },
  { type: 'splash', model: SplashPage, omit: [] },
  { type: 'overlay', model: Overlay, omit: [] },
  { type: 'campaign', model: Campaign, omit: [] },
  { type: 'channel', model: Channel, omit: [] },
  { type: 'bio', model: Bio, omit: [] },
  { type: 'link', model: Link, omit: [] },
  {
    type: 'qr',
    model: QrCode,
    omit: ['status', 'failureReason', 'renderVersion', 'renderedAt', 'payload'],
  },
  { type: 'channelItem', model: ChannelItem, omit: [] },
  { type: 'webhook', model: Webhook, omit: ['secret', 'secretKeyId'] },
] as const;

export type ExportType = (typeof EXPORT_KINDS)[number]['type'];

export interface ExportHeader {
  format: 'linkqr-export';
  version: number;
  /** The service that wrote it (its PUBLIC_URL). */
  source: string;
  exported: string;
  user: { id: number; username: string };
}

export interface ExportRecord {
  type: ExportType;
  data: Record<string, unknown>;
}

/** A stored document as it leaves: every field but `_id`, the owner and what `omit` names. */
function exported(doc: Record<string, unknown>, omit: readonly string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === '_id' || key === 'userId' || omit.includes(key)) continue;
    data[key] = value;
  }
  return data;
}

/**
 * The header line, then everything the user owns, kind after kind, each in id order from a
 * cursor: the client's reading pace sets how fast records are read, so memory stays flat.
 * Records are carried whole, so fields added to a kind later travel without a change here.
 */
export async function* portableExport(
  user: { id: number; username: string },
  publicUrl: string,
): AsyncGenerator<ExportHeader | ExportRecord> {
  yield {
    format: 'linkqr-export',
    version: EXPORT_VERSION,
    source: publicUrl,
    exported: new Date().toISOString(),
    user: { id: user.id, username: user.username },
  };
  for (const kind of EXPORT_KINDS) {
    const model = kind.model as unknown as Model<Record<string, unknown>>;
    const cursor = model
      .find({ userId: user.id })
      .sort(kind.type === 'channelItem' ? { channelId: 1, itemId: 1 } : { id: 1 })
      .lean<Array<Record<string, unknown>>>()
      .cursor({ batchSize: 500 });
    for await (const doc of cursor) yield { type: kind.type, data: exported(doc, kind.omit) };
  }
}
