import { Schema, model, type InferSchemaType } from 'mongoose';
import { invalidatesOwnedLists } from '../shared/db/owned-lists';
import { PIXEL_TYPES } from './pixel-tags';

const pixelSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    type: { type: String, required: true, enum: PIXEL_TYPES },
    name: { type: String, required: true },
    tag: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'pixels' },
);
pixelSchema.index({ userId: 1, id: -1 });
pixelSchema.plugin(invalidatesOwnedLists);

export type PixelRecord = InferSchemaType<typeof pixelSchema>;
export const Pixel = model('Pixel', pixelSchema);
