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
    /** Administrators' keys may also manage users and plans (GemPixel's admin API). */
    admin: { type: Boolean, required: true, default: false },
  },
  { versionKey: false, collection: 'users' },
);

export type UserRecord = InferSchemaType<typeof userSchema>;
export const User = model('User', userSchema);
