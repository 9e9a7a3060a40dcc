import { Schema, model, type InferSchemaType } from 'mongoose';

export const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'] as const;
export type QrType = (typeof QR_TYPES)[number];
export const QR_STATUSES = ['pending', 'ready', 'failed'] as const;

const qrCodeSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true, index: true },
    /** Public handle: `{PUBLIC_URL}/qr/{alias}` serves the image, `/s/{alias}` the dynamic redirect. */
    alias: { type: String, required: true, unique: true },
    name: { type: String, default: '' },
    type: { type: String, required: true, enum: QR_TYPES },
    data: { type: Schema.Types.Mixed, required: true },
    status: { type: String, required: true, enum: QR_STATUSES, default: 'pending' },
    failureReason: { type: String, default: null },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'qr_codes' },
);
qrCodeSchema.index({ userId: 1, id: -1 });

export type QrCodeRecord = InferSchemaType<typeof qrCodeSchema>;
export const QrCode = model('QrCode', qrCodeSchema);
