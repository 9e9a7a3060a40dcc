import { expect } from 'chai';
import { linkCacheFor } from '../../src/links/link-cache';
import type { TestApp } from './app-harness';
import { client, request, type RequestOptions, type TestResponse } from './http';

export interface CreatedLink {
  id: number;
  shorturl: string;
  alias: string;
}

/** Creates a link through the API and checks it was created. */
export async function createLink(
  app: TestApp,
  apiKey: string,
  body: Record<string, unknown>,
): Promise<CreatedLink> {
  const res = await client(app.url, apiKey).post<{ id: number; shorturl: string }>(
    '/api/url/add',
    body,
  );
  expect(res.status, res.text).to.equal(200);
  return { ...res.body, alias: aliasOf(res.body.shorturl) };
}

export function aliasOf(shorturl: string): string {
  return new URL(shorturl).pathname.slice(1);
}

/** A visitor request on the public side (no key, redirects not followed). */
export function visit(
  app: TestApp,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse> {
  return request(app.url, path, options);
}

/** A visitor posting the password form, as a browser would. */
export function submitPassword(
  app: TestApp,
  alias: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return request(app.url, `/${alias}`, {
    method: 'POST',
    rawBody: new URLSearchParams({ password }).toString(),
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** Resolves once the app's link cache receives invalidations from other processes. */
export function linkCacheLive(app: TestApp): Promise<void> {
  return linkCacheFor(app.deps).whenLive();
}

/** Polls `check` until it returns true, failing after `timeoutMs`. */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The behaviour fields of a link created without any (a plain direct link). */
export const DIRECT_LINK_FIELDS = {
  type: 'direct',
  splash: null,
  overlay: null,
  pixels: [],
  geotarget: [],
  devicetarget: [],
  languagetarget: [],
  rules: [],
  variants: [],
  maxclicks: null,
  expiredurl: null,
  monitor: false,
  fallback: null,
  parameters: [],
  metatitle: '',
  metadescription: '',
  metaimage: '',
};
