import { Schema, model, type InferSchemaType } from 'mongoose';

const bioLinkSchema = new Schema(
  { title: { type: String, required: true }, url: { type: String, required: true } },
  { _id: false },
);

/** A bio page; its links are written whole with it, so they stay inside the document. */
const bioSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    alias: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    links: { type: [bioLinkSchema], default: [] },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'bio_pages' },
);
bioSchema.index({ userId: 1, id: -1 });

export type BioRecord = InferSchemaType<typeof bioSchema>;
export const Bio = model<BioRecord>('Bio', bioSchema);
