import { Schema, model, type InferSchemaType } from 'mongoose';

const userSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    email: { type: String, required: true, unique: true },
    username: { type: String, required: true, unique: true },
    avatar: { type: String, required: true },
    status: { type: String, required: true, default: 'free' },
    expires: { type: Date, default: null },
    registered: { type: Date, required: true, default: () => new Date() },
    passwordHash: { type: String, default: null },
    apiKeyHash: { type: String, required: true, unique: true },
    /** The default key's first characters (users created before named keys have none). */
    apiKeyPrefix: { type: String, default: null },
    /** The default key its last rotation replaced, accepted until `previousApiKeyUntil`. */
    previousApiKeyHash: { type: String, default: null, index: { sparse: true } },
    previousApiKeyPrefix: { type: String, default: null },
    previousApiKeyUntil: { type: Date, default: null },
    apiKeyLastUsed: { type: Date, default: null },
    /** Administrators' keys may also manage users and plans (GemPixel's admin API). */
    admin: { type: Boolean, required: true, default: false },
    /** "Sign out everywhere": every dashboard session opened before this ends at its next request. */
    sessionsEndedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'users' },
);

export type UserRecord = InferSchemaType<typeof userSchema>;
export const User = model('User', userSchema);
