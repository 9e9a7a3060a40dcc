import { Schema, model, type InferSchemaType } from 'mongoose';
import { DEFAULT_BACKGROUND, DEFAULT_FOREGROUND } from './qr-colors';

export const QR_TYPES = [
  'text',
  'vcard',
  'link',
  'email',
  'phone',
  'sms',
  'wifi',
  'geo',
  'event',
  'app',
] as const;
/** Types whose symbol encodes `/s/{alias}`: each scan goes through us and is counted. */
export const DYNAMIC_QR_TYPES: readonly QrType[] = ['link', 'app'];
export type QrType = (typeof QR_TYPES)[number];
export const QR_STATUSES = ['pending', 'ready', 'failed'] as const;
export type QrStatus = (typeof QR_STATUSES)[number];
export const QR_FORMATS = ['png', 'svg'] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

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
    /**
     * Exactly the text the symbol encodes, fixed when the content is written. Not `required`, so
     * records written with the core fields only (other modules' tests) stay valid.
     */
    payload: { type: String, default: '' },
    background: { type: String, required: true, default: DEFAULT_BACKGROUND },
    foreground: { type: String, required: true, default: DEFAULT_FOREGROUND },
    /** An http(s) URL or a path inside LOGO_DIR, as given; fetched by the worker. */
    logo: { type: String, default: null },
    /** The design (`QrStyle`): dot and corner shapes, gradient, frame, margin, error correction. */
    style: { type: Schema.Types.Mixed, default: null },
    size: { type: Number, required: true, default: 512 },
    /** What `/qr/{alias}` serves without a suffix. */
    format: { type: String, required: true, enum: QR_FORMATS, default: 'png' },
    /**
     * Bumped by every write that changes the image; a render job carries the version it was
     * queued for, so a late job for an older version can never overwrite a newer image.
     */
    renderVersion: { type: Number, required: true, default: 1 },
    updatedAt: { type: Date, required: true, default: () => new Date() },
    renderedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'qr_codes' },
);
qrCodeSchema.index({ userId: 1, id: -1 });
// The worker's sweep for codes whose job was never queued (the API lost Redis mid-request).
qrCodeSchema.index({ status: 1, updatedAt: 1 });

export type QrCodeRecord = InferSchemaType<typeof qrCodeSchema>;
export const QrCode = model('QrCode', qrCodeSchema);
