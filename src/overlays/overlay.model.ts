import { Schema, model, type InferSchemaType } from 'mongoose';
import { invalidatesOwnedLists } from '../shared/db/owned-lists';

export const OVERLAY_TYPES = ['message', 'contact'] as const;
export type OverlayType = (typeof OVERLAY_TYPES)[number];

export const OVERLAY_POSITIONS = ['bottom-right', 'bottom-left', 'top-right', 'top-left'] as const;
export type OverlayPosition = (typeof OVERLAY_POSITIONS)[number];

const overlaySchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    type: { type: String, required: true, enum: OVERLAY_TYPES },
    name: { type: String, required: true },
    message: { type: String, default: '' },
    /** The call to action: its label and where it leads (`message` overlays). */
    button: { type: String, default: '' },
    link: { type: String, default: '' },
    /** Text and background colours, `#RRGGBB`. */
    color: { type: String, default: '#ffffff' },
    background: { type: String, default: '#1f2937' },
    position: { type: String, enum: OVERLAY_POSITIONS, default: 'bottom-right' },
    /** Contact-form submissions received (the records are overlay_responses). */
    responses: { type: Number, default: 0 },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'overlays' },
);
overlaySchema.index({ userId: 1, id: -1 });
overlaySchema.plugin(invalidatesOwnedLists);

export type OverlayRecord = InferSchemaType<typeof overlaySchema>;
export const Overlay = model('Overlay', overlaySchema);
