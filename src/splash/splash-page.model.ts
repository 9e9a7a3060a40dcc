import { Schema, model, type InferSchemaType } from 'mongoose';

const splashPageSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    name: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'splash_pages' },
);
splashPageSchema.index({ userId: 1, id: -1 });

export type SplashPageRecord = InferSchemaType<typeof splashPageSchema>;
export const SplashPage = model('SplashPage', splashPageSchema);
