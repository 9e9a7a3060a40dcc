import { Schema, model, type InferSchemaType } from 'mongoose';
import { invalidatesOwnedLists } from '../shared/db/owned-lists';

export const DEFAULT_SPLASH_COUNTER = 5;

const splashPageSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    name: { type: String, required: true },
    title: { type: String, default: '' },
    message: { type: String, default: '' },
    image: { type: String, default: '' },
    /** The call to action: where the button leads and its label. */
    link: { type: String, default: '' },
    button: { type: String, default: '' },
    /** Seconds the page shows before the visitor is sent on. */
    counter: { type: Number, default: DEFAULT_SPLASH_COUNTER },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'splash_pages' },
);
splashPageSchema.index({ userId: 1, id: -1 });
splashPageSchema.plugin(invalidatesOwnedLists);

export type SplashPageRecord = InferSchemaType<typeof splashPageSchema>;
export const SplashPage = model('SplashPage', splashPageSchema);
