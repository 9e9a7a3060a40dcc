import { Schema, model, type InferSchemaType } from 'mongoose';

export const OVERLAY_TYPES = ['message', 'contact'] as const;
export type OverlayType = (typeof OVERLAY_TYPES)[number];

const overlaySchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    type: { type: String, required: true, enum: OVERLAY_TYPES },
    name: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'overlays' },
);
overlaySchema.index({ userId: 1, id: -1 });

export type OverlayRecord = InferSchemaType<typeof overlaySchema>;
export const Overlay = model('Overlay', overlaySchema);
