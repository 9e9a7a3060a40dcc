import { Schema, model, type InferSchemaType } from 'mongoose';

export const IMPORT_SOURCES = ['gempixel', 'linkqr', 'shlink', 'kutt', 'bitly', 'csv'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
export const IMPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** The report keeps the first errors only: an import of a million bad rows must not grow it. */
export const MAX_REPORTED_ERRORS = 1000;

/** One import job and its running report. The source's key is never stored (see imports.jobs.ts). */
const importSchema = new Schema(
  {
    id: { type: Number, required: true, unique: true },
    userId: { type: Number, required: true },
    source: { type: String, enum: IMPORT_SOURCES, required: true },
    /** The instance's base URL (no key, no credentials); null for an upload. */
    url: { type: String, default: null },
    onConflict: { type: String, enum: ['skip', 'rename'], default: 'skip' },
    status: { type: String, enum: IMPORT_STATUSES, default: 'queued' },
    total: { type: Number, default: 0 },
    imported: { type: Number, default: 0 },
    skipped: { type: Number, default: 0 },
    failed: { type: Number, default: 0 },
    errors: { type: [{ _id: false, item: String, message: String }], default: [] },
    /**
     * Webhooks the import created, each with a new signing secret (the source's never leaves it):
     * the secrets are read from the webhooks themselves, encrypted there, and shown once.
     */
    webhooks: { type: [{ _id: false, item: String, id: Number, url: String }], default: [] },
    /** Set by the one read that showed the new webhooks' secrets; later reads show none. */
    webhookSecretsShown: { type: Boolean, default: false },
    started: { type: Date, default: null },
    finished: { type: Date, default: null },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false, collection: 'imports', suppressReservedKeysWarning: true },
);
importSchema.index({ userId: 1, id: -1 });

export type ImportRecord = InferSchemaType<typeof importSchema>;
export const ImportJob = model<ImportRecord>('ImportJob', importSchema);

/**
 * What an import brought in, by the source's own id: a re-run skips these, and references
 * between records (a QR code's link, a link's campaign) are resolved through them.
 */
const importedItemSchema = new Schema(
  {
    userId: { type: Number, required: true },
    /** The source and its instance (`shlink https://s.example.com`): ids are only unique there. */
    origin: { type: String, required: true },
    kind: { type: String, required: true },
    sourceId: { type: String, required: true },
    targetId: { type: Number, required: true },
  },
  { versionKey: false, collection: 'imported_items' },
);
importedItemSchema.index({ userId: 1, origin: 1, kind: 1, sourceId: 1 }, { unique: true });

export type ImportedItemRecord = InferSchemaType<typeof importedItemSchema>;
export const ImportedItem = model<ImportedItemRecord>('ImportedItem', importedItemSchema);

/** An uploaded CSV, in chunks, until its job has read it: API and worker share only the database. */
const importFileChunkSchema = new Schema(
  {
    importId: { type: Number, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
  },
  { versionKey: false, collection: 'import_file_chunks' },
);
importFileChunkSchema.index({ importId: 1, n: 1 }, { unique: true });

export const ImportFileChunk = model('ImportFileChunk', importFileChunkSchema);
