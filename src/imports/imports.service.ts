import { badRequest, validation } from '../shared/errors/app-error';
import { Webhook } from '../webhooks/webhook.model';
import { decryptSecret } from '../webhooks/webhook-secret';
import { findOwned, listOwned } from '../shared/db/owned';
import { nextId } from '../shared/ids/counter.model';
import type { PageQuery } from '../shared/http/pagination';
import {
  resolveWebhookTarget,
  WebhookTargetError,
  type TargetPolicy,
} from '../webhooks/webhook-target';
import { ImportFileChunk, ImportJob, type ImportRecord } from './import.model';
import { sealKey, type ImportQueue } from './imports.jobs';
import { DEFAULT_SOURCE_URLS, FILE_SOURCES, type ImportCreate } from './imports.schemas';

export interface ImportContext {
  queue: ImportQueue;
  /** Seals the source's key for the job; absent, an import that needs a key is refused. */
  secretKey: Buffer | undefined;
  policy: TargetPolicy;
}

/**
 * The instance an import reads, checked against the private-address policy of logos and
 * webhooks (IMPORT_ALLOW_PRIVATE lifts it); null for an upload.
 */
export async function sourceUrlOf(
  input: Pick<ImportCreate, 'source' | 'url'>,
  hasFile: boolean,
  policy: TargetPolicy,
): Promise<string | null> {
  const url = input.url ?? (hasFile ? undefined : DEFAULT_SOURCE_URLS[input.source]);
  if (url === undefined) {
    if (hasFile) return null;
    const what = FILE_SOURCES.includes(input.source) ? 'url (or a file upload)' : 'url';
    throw validation(`${what} is required for source ${input.source}`, 'url');
  }
  if (hasFile) throw validation('send either url or a file, not both', 'url');
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw validation('url must not carry credentials', 'url');
  try {
    await resolveWebhookTarget(parsed, policy);
  } catch (err) {
    if (err instanceof WebhookTargetError) throw validation(err.message, 'url');
    throw err;
  }
  return parsed.toString().replace(/\/+$/, '');
}

/** Records the import and queues it for the worker; the answer is immediate. */
export async function startImport(
  userId: number,
  input: ImportCreate,
  ctx: ImportContext,
  upload?: { importId: number },
): Promise<ImportRecord> {
  if (upload && !FILE_SOURCES.includes(input.source))
    throw validation(`source ${input.source} does not read a file`, 'file');
  const url = await sourceUrlOf(input, upload !== undefined, ctx.policy);
  if (input.key !== undefined && !ctx.secretKey)
    throw badRequest('imports with a key need WEBHOOK_SECRET_KEY, which seals the key for the job');
  const id = upload?.importId ?? (await nextId('imports'));
  const job = await ImportJob.create({
    id,
    userId,
    source: input.source,
    url,
    onConflict: input.onConflict,
    status: 'queued',
  });
  const sealedKey =
    input.key !== undefined && ctx.secretKey ? sealKey(input.key, ctx.secretKey) : undefined;
  await ctx.queue.enqueue({ importId: id, ...(sealedKey ? { sealedKey } : {}) });
  return job.toObject<ImportRecord>();
}

/** Drops an upload whose import was refused. */
export async function discardUpload(importId: number): Promise<void> {
  await ImportFileChunk.deleteMany({ importId });
}

export function getImport(userId: number, id: number): Promise<ImportRecord> {
  return findOwned(ImportJob, userId, id, 'Import');
}

/**
 * The caller's import, and the first time it is read finished, the signing secrets of the
 * webhooks it created (decrypted from the webhooks themselves): one read wins the flag that
 * shows them, every later or concurrent read gets none.
 */
export async function revealImport(
  userId: number,
  id: number,
  secretKey: Buffer | undefined,
): Promise<{ job: ImportRecord; secrets: Map<number, string> }> {
  const job = await getImport(userId, id);
  const secrets = new Map<number, string>();
  const finished = job.status === 'done' || job.status === 'failed';
  const ids = (job.webhooks ?? []).flatMap((w) => (typeof w.id === 'number' ? [w.id] : []));
  if (!finished || job.webhookSecretsShown || !ids.length || !secretKey) return { job, secrets };
  const won = await ImportJob.updateOne(
    { id, userId, webhookSecretsShown: { $ne: true } },
    { $set: { webhookSecretsShown: true } },
  );
  if (won.modifiedCount !== 1) return { job, secrets };
  const hooks = await Webhook.find({ userId, id: { $in: ids } }).lean();
  for (const hook of hooks) secrets.set(hook.id, decryptSecret(hook.secret, secretKey));
  return { job, secrets };
}

export function listImports(userId: number, query: PageQuery) {
  return listOwned(ImportJob, userId, query);
}
