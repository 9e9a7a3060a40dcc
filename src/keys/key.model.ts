import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * A named key of a user, beside the default key the user record holds (`apiKeyHash`). Only the
 * hash of the key is stored; `prefix` is its first characters, shown so a person can recognise it.
 */
const apiKeySchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true, index: true },
    name: { type: String, required: true },
    prefix: { type: String, required: true },
    keyHash: { type: String, required: true, unique: true },
    scopes: { type: [String], required: true },
    created: { type: Date, required: true, default: () => new Date() },
    lastused: { type: Date, default: null },
    expires: { type: Date, default: null },
    /** The key this one replaced at its last rotation, accepted until `previousUntil`. */
    previousHash: { type: String, default: null, index: { sparse: true } },
    previousPrefix: { type: String, default: null },
    previousUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'api_keys' },
);

export type ApiKeyRecord = InferSchemaType<typeof apiKeySchema>;
export const ApiKey = model('ApiKey', apiKeySchema);
