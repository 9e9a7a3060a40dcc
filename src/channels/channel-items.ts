import { Bio, type BioRecord } from '../bio/bio.model';
import { bioPageUrl } from '../bio/bio-url';
import { originsOf } from '../links/link-domains';
import { Link, type LinkRecord } from '../links/link.model';
import { shortUrlOf } from '../links/short-url';
import { QrCode, type QrCodeRecord } from '../qr-codes/qr-code.model';
import type { ChannelItemRecord, ChannelItemType } from './channel.model';

/** A channel item as the spec shows it (4.7), before dates are formatted. */
export interface ChannelItemView {
  type: ChannelItemType;
  id: number;
  title: string;
  preview: string;
  link: string;
  date: Date;
}

function idsOf(memberships: ChannelItemRecord[], type: ChannelItemType): number[] {
  return memberships.filter((m) => m.type === type).map((m) => m.itemId);
}

async function linkViews(ids: number[], publicUrl: string): Promise<ChannelItemView[]> {
  if (!ids.length) return [];
  const links = await Link.find({ id: { $in: ids } }).lean<LinkRecord[]>();
  const origins = await originsOf(links);
  return links.map((l) => ({
    type: 'links',
    id: l.id,
    title: l.title || l.url,
    preview: l.url,
    link: shortUrlOf(l, origins, publicUrl),
    date: l.createdAt,
  }));
}

async function bioViews(ids: number[], publicUrl: string): Promise<ChannelItemView[]> {
  if (!ids.length) return [];
  const pages = await Bio.find({ id: { $in: ids } }).lean<BioRecord[]>();
  return pages.map((b) => {
    const url = bioPageUrl(publicUrl, b.alias);
    return { type: 'bio', id: b.id, title: b.name, preview: url, link: url, date: b.createdAt };
  });
}

async function qrViews(ids: number[], publicUrl: string): Promise<ChannelItemView[]> {
  if (!ids.length) return [];
  const codes = await QrCode.find({ id: { $in: ids } }).lean<QrCodeRecord[]>();
  return codes.map((q) => {
    const url = `${publicUrl}/qr/${q.alias}`;
    return {
      type: 'qr',
      id: q.id,
      title: q.name ?? '',
      preview: url,
      link: url,
      date: q.createdAt,
    };
  });
}

/**
 * The items behind a page of memberships, in the memberships' order. An item deleted without
 * leaving its channels (only possible mid-delete) is skipped rather than shown half-empty.
 */
export async function resolveChannelItems(
  memberships: ChannelItemRecord[],
  publicUrl: string,
): Promise<ChannelItemView[]> {
  const views = (
    await Promise.all([
      linkViews(idsOf(memberships, 'links'), publicUrl),
      bioViews(idsOf(memberships, 'bio'), publicUrl),
      qrViews(idsOf(memberships, 'qr'), publicUrl),
    ])
  ).flat();
  const byKey = new Map(views.map((v) => [`${v.type}:${v.id}`, v]));
  return memberships.flatMap((m) => byKey.get(`${m.type}:${m.itemId}`) ?? []);
}
