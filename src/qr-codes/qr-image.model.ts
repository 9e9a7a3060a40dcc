import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * Rendered images, one document per QR code, render version and format: every API replica can
 * serve them, and a re-render writes new documents instead of growing the QR code's own.
 */
const qrImageSchema = new Schema(
  {
    qrId: { type: Number, required: true },
    renderVersion: { type: Number, required: true },
    /** A stored format, or a variant drawn on request: `png@1024`, `pdf@cmyk,bleed=3`. */
    format: { type: String, required: true, match: /^(png|svg|logo|pdf|eps)(@[a-z0-9=.,]*)?$/ },
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
