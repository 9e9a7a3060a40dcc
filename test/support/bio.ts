import { expect } from 'chai';
import type { TestApp } from './app-harness';
import { client } from './http';

/** Creates a bio page through the API and checks it was created. */
export async function createBio(
  app: TestApp,
  apiKey: string,
  body: Record<string, unknown>,
): Promise<{ id: number; link: string; alias: string }> {
  const res = await client(app.url, apiKey).post<{ id: number; link: string }>(
    '/api/bio/add',
    body,
  );
  expect(res.status, res.text).to.equal(200);
  return { ...res.body, alias: new URL(res.body.link).pathname.replace('/b/', '') };
}
