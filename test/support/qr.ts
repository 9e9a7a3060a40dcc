import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jsQR from 'jsqr';
import sharp from 'sharp';
import {
  startQrRenderWorker,
  type QrRenderWorker,
  type QrRenderWorkerOptions,
} from '../../workers/qr-render/qr-render.worker';
import type { TestApp } from './app-harness';
import { client } from './http';

/** A real render worker consuming the test app's queue, in this process. */
export function startQrWorker(app: TestApp, options: QrRenderWorkerOptions = {}): QrRenderWorker {
  return startQrRenderWorker(
    { config: app.config, logger: app.deps.logger, keys: app.deps.keys },
    { stalledInterval: 1000, lockDuration: 5000, ...options },
  );
}

export interface QrDetails {
  id: number;
  link: string;
  scans: number;
  name: string;
  date: string;
  status: 'pending' | 'ready' | 'failed';
  reason: string | null;
}

/** Polls `GET /api/qr/:id` until the code leaves `pending` (or the timeout passes). */
export async function waitForRender(
  app: TestApp,
  apiKey: string,
  id: number,
  timeoutMs = 30_000,
): Promise<QrDetails> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client(app.url, apiKey).get<{ details: QrDetails }>(`/api/qr/${id}`);
    if (res.status !== 200) throw new Error(`GET /api/qr/${id} answered ${res.status}`);
    if (res.body.details.status !== 'pending') return res.body.details;
    if (Date.now() > deadline) throw new Error(`QR ${id} still pending after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What `details.formats` lists for a code whose image is `link`. */
export function formatsOf(link: string): Record<string, string> {
  return Object.fromEntries(['png', 'svg', 'pdf', 'eps'].map((f) => [f, `${link}.${f}`]));
}

/** The path of a code's public image URL (`link`), relative to the app. */
export function imagePath(link: string): string {
  return new URL(link).pathname;
}

export function aliasOf(link: string): string {
  return imagePath(link).split('/').pop() as string;
}

/** Decodes any image sharp can read (PNG, or SVG rasterised by librsvg) with jsQR. */
export async function decodeImage(bytes: Buffer): Promise<{ text: string; version: number }> {
  const { data, info } = await sharp(bytes)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const result = jsQR(new Uint8ClampedArray(data), info.width, info.height);
  if (!result) throw new Error('image does not decode as a QR code');
  return { text: Buffer.from(result.binaryData).toString('utf8'), version: result.version };
}

/** The RGB of one pixel. */
export async function pixelAt(
  png: Buffer,
  x: number,
  y: number,
): Promise<[number, number, number]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i] as number, data[i + 1] as number, data[i + 2] as number];
}

/** A square logo of one colour. */
export function solidLogo(
  rgb: { r: number; g: number; b: number },
  format: 'png' | 'jpeg' = 'png',
): Promise<Buffer> {
  const image = sharp({ create: { width: 240, height: 240, channels: 3, background: rgb } });
  return (format === 'png' ? image.png() : image.jpeg()).toBuffer();
}

export type LogoHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface LogoServer {
  /** `http://127.0.0.1:port` */
  origin: string;
  route(path: string, handler: LogoHandler): void;
  hits(path: string): number;
  close(): Promise<void>;
}

/** Stands in for the internet: a loopback HTTP server whose routes each test defines. */
export async function startLogoServer(): Promise<LogoServer> {
  const routes = new Map<string, LogoHandler>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) return handler(req, res);
    res.statusCode = 404;
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    route: (path, handler) => routes.set(path, handler),
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function servePng(bytes: Buffer): LogoHandler {
  return (_req, res) => {
    res.setHeader('content-type', 'image/png');
    res.end(bytes);
  };
}
