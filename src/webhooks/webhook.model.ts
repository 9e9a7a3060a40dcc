import { Schema, model, type InferSchemaType } from 'mongoose';

export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.broken',
  'link.recovered',
  'qr.ready',
  'qr.failed',
  'clicks',
  // A branded domain's ownership record found again, or gone (issue 29, M6).
  'domain.verified',
  'domain.suspended',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const webhookSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    /** The signing secret, AES-256-GCM encrypted (see webhook-secret.ts); never shown again. */
    secret: { type: String, required: true },
    /**
     * Names the WEBHOOK_SECRET_KEY that encrypted `secret` (keyIdOf): at start the API finds the
     * webhooks the configured key cannot sign by this field alone. Null on records older than it.
     */
    secretKeyId: { type: String, default: null },
    /** When deliveries started failing without a success since; null while healthy. */
    failingSince: { type: Date, default: null },
    /** Deliveries in a row that got no answer in time; any answer starts it again at 0 (M7). */
    consecutiveTimeouts: { type: Number, default: 0 },
    disabledAt: { type: Date, default: null },
    disabledReason: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhooks' },
);
webhookSchema.index({ userId: 1, id: -1 });
webhookSchema.index({ userId: 1, events: 1 });
webhookSchema.index({ secretKeyId: 1 });
// "Does anyone subscribe to this event?" (webhook-subscribers.ts), across users.
webhookSchema.index({ events: 1, disabledAt: 1 });

/** One delivery attempt, kept for the owner to inspect (`webhook/:id/deliveries`). */
const deliverySchema = new Schema(
  {
    webhookId: { type: Number, required: true },
    deliveryId: { type: String, required: true },
    event: { type: String, required: true },
    attempt: { type: Number, required: true },
    status: { type: Number, default: null },
    ok: { type: Boolean, required: true },
    error: { type: String, default: null },
    durationMs: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_deliveries' },
);
deliverySchema.index({ webhookId: 1, at: -1 });
deliverySchema.index({ at: 1 });

export type WebhookRecord = InferSchemaType<typeof webhookSchema>;
export type WebhookDeliveryRecord = InferSchemaType<typeof deliverySchema>;
export const Webhook = model('Webhook', webhookSchema);
export const WebhookDelivery = model('WebhookDelivery', deliverySchema);
