import type { Request } from 'express';
import busboy from 'busboy';
import { AppError, badRequest, payloadTooLarge } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import { ImportFileChunk } from './import.model';

/** The largest upload taken (a 100,000-row export of any tool fits many times over). */
export const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

export interface ImportUpload {
  importId: number;
  fields: Record<string, string>;
  hasFile: boolean;
}

/**
 * Reads a multipart import form: its text fields, and its `file` streamed into 1 MB chunks in
 * MongoDB (the worker may run elsewhere), so the API never holds the whole file.
 */
export async function readImportUpload(req: Request): Promise<ImportUpload> {
  const importId = await nextId('imports');
  const fields: Record<string, string> = {};
  let hasFile = false;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: 20, fieldSize: 8192, fileSize: MAX_UPLOAD_BYTES },
    });
  } catch {
    throw badRequest('Malformed multipart body');
  }
  const writes: Array<Promise<unknown>> = [];
  await new Promise<void>((resolve, reject) => {
    const fail = (err: AppError) => {
      req.unpipe(parser);
      req.resume();
      reject(err);
    };
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream) => {
      if (name !== 'file') {
        stream.resume();
        return;
      }
      hasFile = true;
      let n = 0;
      let pending: Buffer[] = [];
      let size = 0;
      const flush = () => {
        if (!size) return;
        const data = Buffer.concat(pending);
        pending = [];
        size = 0;
        n += 1;
        stream.pause();
        const write = ImportFileChunk.create({ importId, n, data });
        writes.push(write);
        write.then(
          () => stream.resume(),
          (err: unknown) => {
            stream.resume();
            reject(err as Error);
          },
        );
      };
      stream.on('data', (chunk: Buffer) => {
        pending.push(chunk);
        size += chunk.length;
        if (size >= CHUNK_BYTES) flush();
      });
      stream.on('limit', () =>
        fail(payloadTooLarge(`file is larger than ${MAX_UPLOAD_BYTES} bytes`)),
      );
      stream.on('end', flush);
    });
    parser.on('error', () => fail(badRequest('Malformed multipart body')));
    parser.on('close', () => resolve());
    req.pipe(parser);
  });
  await Promise.all(writes);
  return { importId, fields, hasFile };
}
