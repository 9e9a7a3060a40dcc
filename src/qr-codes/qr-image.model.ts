import { Schema, model, type InferSchemaType } from 'mongoose';
import { QR_FORMATS } from './qr-code.model';

/** The served formats, and `logo`: the logo as placed, kept for drawing PDF and EPS. */
export const STORED_FORMATS = [...QR_FORMATS, 'logo'] as const;

/**
 * Rendered images, one document per QR code, render version and format: every API replica can
 * serve them, and a re-render writes new documents instead of growing the QR code's own.
 */
const qrImageSchema = new Schema(
  {
    qrId: { type: Number, required: true },
    renderVersion: { type: Number, required: true },
    format: { type: String, required: true, enum: STORED_FORMATS },
    contentType: { type: String, required: true },
    /** Strong validator: a hash of the bytes, so identical renders share it. */
    etag: { type: String, required: true },
    bytes: { type: Buffer, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'qr_images' },
);
qrImageSchema.index({ qrId: 1, renderVersion: 1, format: 1 }, { unique: true });

export type QrImageRecord = InferSchemaType<typeof qrImageSchema>;
export const QrImage = model('QrImage', qrImageSchema);
