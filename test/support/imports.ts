import { expect } from 'chai';
import type { TestApp } from './app-harness';
import { client, type TestResponse } from './http';
import { startImportWorker } from '../../workers/imports/import.worker';

export interface ImportReport {
  id: number;
  source: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  errors: Array<{ item: string; message: string }>;
  started: string | null;
  finished: string | null;
}

/** The worker's import processor, in this process, on the test app's Redis prefix. */
export function startTestImportWorker(app: TestApp) {
  return startImportWorker({
    config: app.config,
    logger: app.deps.logger,
    keys: app.deps.keys,
    resolver: app.deps.domainResolver,
  });
}

/** POSTs a multipart import form with `file` holding `content`. */
export async function uploadImport(
  app: TestApp,
  apiKey: string,
  content: string | Buffer,
  fields: Record<string, string> = {},
): Promise<TestResponse<{ error: number; id: number; message?: string }>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([content]), 'links.csv');
  const res = await fetch(`${app.url}/api/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: JSON.parse(text) as { error: number; id: number },
    text,
  };
}

/** Polls the import until it has finished, and answers its report. */
export async function finishedImport(
  app: TestApp,
  apiKey: string,
  id: number,
  timeoutMs = 30_000,
): Promise<ImportReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client(app.url, apiKey).get<{ data: ImportReport }>(`/api/import/${id}`);
    expect(res.status, res.text).to.equal(200);
    if (res.body.data.status === 'done' || res.body.data.status === 'failed') return res.body.data;
    if (Date.now() > deadline) throw new Error(`import ${id} still ${res.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
