import { Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from '../shared/infra/redis-connections';
import { bullPrefix } from '../qr-codes/qr-codes.jobs';
import type { Logger } from '../shared/infra/logger';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { decryptSecret, encryptSecret } from '../webhooks/webhook-secret';

/** The import job contract, shared by the API and the CLI (producers) and `workers/` (consumer). */
export const IMPORT_QUEUE = 'imports';

/**
 * An import's id and, when the source needs one, its API key encrypted under the service's
 * secret key (AES-256-GCM). The key lives only in this job, which is removed when it ends: it
 * is never written to MongoDB or a log.
 */
export interface ImportJobData {
  importId: number;
  sealedKey?: string;
}

export const importJobOptions: JobsOptions = {
  // Sources are retried inside the job (429s waited out, 5xx backed off); a re-run resumes anyway.
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: true,
};

export function sealKey(key: string, secret: Buffer): string {
  return encryptSecret(key, secret);
}

export function unsealKey(sealed: string, secret: Buffer): string {
  return decryptSecret(sealed, secret);
}

export interface ImportQueue {
  enqueue(data: ImportJobData): Promise<void>;
  close(): Promise<void>;
}

export function createImportQueue(options: {
  connection: RedisClient;
  keys: RedisKeys;
  logger: Logger;
}): ImportQueue {
  const queue = new Queue<ImportJobData>(IMPORT_QUEUE, {
    connection: options.connection,
    prefix: bullPrefix(options.keys),
    defaultJobOptions: importJobOptions,
  });
  queue.on('error', (err) => options.logger.warn({ err: err.message }, 'import queue error'));
  return {
    async enqueue(data) {
      await queue.add('import', data, { jobId: `import-${data.importId}` });
    },
    close: () => queue.close(),
  };
}
