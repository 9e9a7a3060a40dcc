import { expect } from 'chai';
import type { TestApp } from './app-harness';
import { client } from './http';

async function created(
  app: TestApp,
  apiKey: string,
  path: string,
  body: Record<string, unknown>,
): Promise<number> {
  const res = await client(app.url, apiKey).post<{ id: number }>(path, body);
  expect(res.status, res.text).to.equal(200);
  return res.body.id;
}

export const addPixel = (app: TestApp, apiKey: string, body: Record<string, unknown>) =>
  created(app, apiKey, '/api/pixel/add', { name: 'Pixel', ...body });

export const addSplash = (app: TestApp, apiKey: string, body: Record<string, unknown> = {}) =>
  created(app, apiKey, '/api/splash/add', { name: 'Splash', ...body });

export const addOverlay = (app: TestApp, apiKey: string, body: Record<string, unknown> = {}) =>
  created(app, apiKey, '/api/overlay/add', { name: 'Overlay', type: 'message', ...body });

/** A Facebook-style pixel id the fbpixel tag format accepts. */
export const FB_TAG = '123456789012345';
