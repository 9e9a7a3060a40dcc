import { Schema, model, type InferSchemaType } from 'mongoose';

export const CHANNEL_ITEM_TYPES = ['links', 'bio', 'qr'] as const;
export type ChannelItemType = (typeof CHANNEL_ITEM_TYPES)[number];

const channelSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    color: { type: String, default: '' },
    starred: { type: Boolean, default: false },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'channels' },
);
channelSchema.index({ userId: 1, id: -1 });

/** One item in one channel: separate documents, since an item may sit in many channels. */
const channelItemSchema = new Schema(
  {
    channelId: { type: Number, required: true },
    userId: { type: Number, required: true },
    type: { type: String, required: true, enum: CHANNEL_ITEM_TYPES },
    itemId: { type: Number, required: true },
    assignedAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'channel_items' },
);
channelItemSchema.index({ channelId: 1, userId: 1, type: 1, itemId: 1 }, { unique: true });
channelItemSchema.index({ type: 1, itemId: 1 });
channelItemSchema.index({ channelId: 1, assignedAt: -1 });

export type ChannelRecord = InferSchemaType<typeof channelSchema>;
export type ChannelItemRecord = InferSchemaType<typeof channelItemSchema>;
export const Channel = model<ChannelRecord>('Channel', channelSchema);
export const ChannelItem = model<ChannelItemRecord>('ChannelItem', channelItemSchema);
