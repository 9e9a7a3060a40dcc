import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';

export type ExportFormat = 'csv' | 'jsonl';
export type ExportRow = Record<string, string | number | boolean>;

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR) gets a leading
 * apostrophe (OWASP's advice on CSV injection): exported titles and referrers are typed by others.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function jsonLines(): Transform {
  return new Transform({
    writableObjectMode: true,
    transform(row: object, _encoding, done) {
      done(null, `${JSON.stringify(row)}\n`);
    },
  });
}

/** Groups an async sequence into arrays of at most `size`, so each group costs one lookup. */
export async function* inChunks<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let chunk: T[] = [];
  for await (const item of items) {
    chunk.push(item);
    if (chunk.length >= size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

function isClientGone(err: unknown): boolean {
  return (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/**
 * Streams rows as CSV (header first) or JSON lines. The rows are pulled only as fast as the
 * client reads (stream backpressure), so memory stays flat whatever the number of rows.
 */
export async function sendExport(
  res: Response,
  options: { format: ExportFormat; filename: string; columns: readonly string[] },
  rows: AsyncIterable<ExportRow>,
): Promise<void> {
  const { format, filename, columns } = options;
  res.setHeader(
    'Content-Type',
    format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
  );
  res.setHeader('Content-Disposition', `attachment; filename="${filename}.${format}"`);
  res.setHeader('Cache-Control', 'private, no-store');
  const encoder =
    format === 'csv'
      ? stringify({
          header: true,
          columns: [...columns],
          cast: { string: neutraliseFormula, boolean: (v) => (v ? 'true' : 'false') },
        })
      : jsonLines();
  try {
    await pipeline(Readable.from(rows, { highWaterMark: 64 }), encoder, res);
  } catch (err) {
    if (!isClientGone(err)) throw err;
  }
}

/** Streams objects as JSON lines, nested values and all, at the client's pace. */
export async function sendJsonLines(
  res: Response,
  filename: string,
  rows: AsyncIterable<object>,
): Promise<void> {
  res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}.jsonl"`);
  res.setHeader('Cache-Control', 'private, no-store');
  try {
    await pipeline(Readable.from(rows, { highWaterMark: 64 }), jsonLines(), res);
  } catch (err) {
    if (!isClientGone(err)) throw err;
  }
}
