import { Schema, model, type InferSchemaType } from 'mongoose';

/** One contact-form submission a visitor sent through a `contact` overlay. */
const overlayResponseSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    /** The overlay owner's id, so listing is always scoped to them. */
    userId: { type: Number, required: true },
    overlayId: { type: Number, required: true },
    linkId: { type: Number, required: true },
    name: { type: String, required: true },
    email: { type: String, required: true },
    message: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'overlay_responses' },
);
overlayResponseSchema.index({ overlayId: 1, id: -1 });

export type OverlayResponseRecord = InferSchemaType<typeof overlayResponseSchema>;
export const OverlayResponse = model('OverlayResponse', overlayResponseSchema);
