import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { QrRenderWorker } from '../../workers/qr-render/qr-render.worker';
import { startTestApp, type TestApp } from './app-harness';
import { client } from './http';
import {
  imagePath,
  servePng,
  solidLogo,
  startLogoServer,
  startQrWorker,
  type LogoServer,
} from './qr';
import type { TestUser } from './users';

export const PUBLIC_URL = 'http://linkqr.test';

/** What a QR test file works with; filled in by the `before` hook `useQrEnvironment` registers. */
export interface QrEnvironment {
  /** The API as deployed by default: logo URLs must reach public addresses. */
  app: TestApp;
  /** Same database and queue, but logo URLs may point at the loopback test server. */
  openApp: TestApp;
  /** A real render worker consuming the queue, in this process. */
  worker: QrRenderWorker;
  /** Stands in for logo hosts on the internet; `/red.png` serves `red`. */
  logos: LogoServer;
  /** LOGO_DIR: `red.png`, `readme.png` (text), `hostname.png` (a symlink out). */
  logoDir: string;
  red: Buffer;
  create(
    user: TestUser,
    body: Record<string, unknown>,
    target?: TestApp,
  ): Promise<{ id: number; link: string }>;
  /** GETs a code's public image, with an optional `.png`/`.svg` suffix. */
  image(
    link: string,
    suffix?: string,
    headers?: Record<string, string>,
  ): Promise<{ res: Response; bytes: Buffer }>;
}

/** Starts the apps, the logo server and a worker before the suite, and stops them after. */
export function useQrEnvironment(): QrEnvironment {
  const env = {} as QrEnvironment;
  before(async () => {
    env.logoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-logo-dir-'));
    env.red = await solidLogo({ r: 220, g: 30, b: 30 });
    fs.writeFileSync(path.join(env.logoDir, 'red.png'), env.red);
    fs.writeFileSync(path.join(env.logoDir, 'readme.png'), 'plain text, not an image');
    fs.symlinkSync('/etc/hostname', path.join(env.logoDir, 'hostname.png'));
    env.logos = await startLogoServer();
    env.logos.route('/red.png', servePng(env.red));
    env.app = await startTestApp({ LOGO_DIR: env.logoDir, COUNTRY_HEADER: 'cf-ipcountry' });
    env.openApp = await startTestApp({ LOGO_DIR: env.logoDir, LOGO_ALLOW_PRIVATE: '1' });
    env.worker = startQrWorker(env.openApp, { sweepAgeMs: 60_000 });
  });
  after(async () => {
    await env.worker.close();
    await Promise.all([env.app.close(), env.openApp.close(), env.logos.close()]);
    fs.rmSync(env.logoDir, { recursive: true, force: true });
  });
  env.create = async (user, body, target) => {
    const res = await client((target ?? env.app).url, user.apiKey).post<{
      id: number;
      link: string;
    }>('/api/qr/add', body);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  env.image = async (link, suffix = '', headers = {}) => {
    const res = await fetch(`${env.app.url}${imagePath(link)}${suffix}`, { headers });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  return env;
}
