import { Bio } from '../bio/bio.model';
import { Link } from '../links/link.model';
import { QrCode } from '../qr-codes/qr-code.model';
import { notFound, validation } from '../shared/errors/app-error';
import { deleteOwned, findOwned, listOwned } from '../shared/db/owned';
import { skipFor, type PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import {
  CHANNEL_ITEM_TYPES,
  Channel,
  ChannelItem,
  type ChannelItemRecord,
  type ChannelItemType,
  type ChannelRecord,
} from './channel.model';
import type { ChannelCreate, ChannelUpdate } from './channels.schemas';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';

export async function listChannels(userId: number, query: PageQuery) {
  return listOwned(Channel, userId, query);
}

export async function createChannel(userId: number, input: ChannelCreate): Promise<ChannelRecord> {
  const doc = await Channel.create({
    id: await nextId('channels'),
    userId,
    name: input.name,
    description: input.description ?? '',
    color: input.color ?? '',
    starred: input.starred ?? false,
    createdAt: new Date(),
  });
  return doc.toObject<ChannelRecord>();
}

export async function updateChannel(userId: number, id: number, input: ChannelUpdate) {
  await findOwned(Channel, userId, id, 'Channel');
  await Channel.updateOne({ id, userId }, { $set: input });
}

/** Deletes the channel and its memberships; the links, bio pages and QR codes stay. */
export async function deleteChannel(userId: number, id: number): Promise<void> {
  await deleteOwned(Channel, userId, id, 'Channel');
  await ChannelItem.deleteMany({ channelId: id, userId });
}

function isItemType(type: string): type is ChannelItemType {
  return (CHANNEL_ITEM_TYPES as readonly string[]).includes(type);
}

async function ownsItem(userId: number, type: ChannelItemType, id: number): Promise<boolean> {
  const filter = { id, userId };
  if (type === 'links') return (await Link.countDocuments(filter)) > 0;
  if (type === 'bio') return (await Bio.countDocuments(filter)) > 0;
  return (await QrCode.countDocuments(filter)) > 0;
}

/** Puts the caller's item in the caller's channel; doing it twice changes nothing. */
export async function assignToChannel(
  userId: number,
  channelId: number,
  type: string,
  itemId: number,
): Promise<void> {
  if (!isItemType(type))
    throw validation(`type must be one of ${CHANNEL_ITEM_TYPES.join(', ')}`, 'type');
  await findOwned(Channel, userId, channelId, 'Channel');
  if (!(await ownsItem(userId, type, itemId))) throw notFound('Item not found');
  try {
    await ChannelItem.updateOne(
      { channelId, userId, type, itemId },
      { $setOnInsert: { assignedAt: new Date() } },
      { upsert: true },
    );
  } catch (err) {
    // Two simultaneous first assignments: the other one inserted it, which is all we wanted.
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** One page of a channel's memberships, most recently assigned first. */
export async function listChannelMemberships(
  userId: number,
  channelId: number,
  query: PageQuery,
): Promise<{ memberships: ChannelItemRecord[]; total: number }> {
  await findOwned(Channel, userId, channelId, 'Channel');
  const filter = { channelId, userId };
  const [total, memberships] = await Promise.all([
    ChannelItem.countDocuments(filter),
    ChannelItem.find(filter)
      .sort({ assignedAt: -1, _id: -1 })
      .skip(skipFor(query))
      .limit(query.limit)
      .lean<ChannelItemRecord[]>(),
  ]);
  return { memberships, total };
}

/** Removes a deleted link, bio page or QR code from every channel it was in. */
export async function unassignEverywhere(type: ChannelItemType, itemId: number): Promise<void> {
  await ChannelItem.deleteMany({ type, itemId });
}
