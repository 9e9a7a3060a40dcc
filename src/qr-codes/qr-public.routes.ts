import { Router, type Response } from 'express';
import type { AppDeps } from '../deps';
import { endpoint } from '../shared/http/endpoint';
import {
  notFoundResponses,
  VISITOR_ERRORS,
  pageResponse,
  redirectResponse,
  sendPage,
} from '../shared/http/pages';
import { sendPublicNotFound } from '../shared/http/public-context';
import { AppError } from '../shared/errors/app-error';
import { escapeHtml } from '../shared/http/pages';
import { MAX_SIZE, MIN_SIZE } from './qr-codes.schemas';
import type { ImageFormat, VariantAsk } from './qr-variants';
import { awaitVariant } from './qr-variant-wait';
import { waitForChange } from './qr-wait';
import type { StoredImage } from './qr-images';
import { DYNAMIC_QR_TYPES, type QrCodeRecord, type QrFormat } from './qr-code.model';
import type { AppData } from './qr-content';
import { ALIAS_PATTERN, findQrByAlias } from './qr-codes.service';
import { findImage } from './qr-images';
import { qrImageCacheFor, qrImageKey } from './qr-image-cache';
import { PENDING_TTL_MS, qrLookupCacheFor } from './qr-lookup-cache';

const IMAGE_FILE = /^([A-Za-z0-9]+)(?:\.(png|svg|pdf|eps))?$/;
/** Seconds a client should wait before asking again for an image still being rendered. */
export const RENDER_RETRY_AFTER = 2;

/**
 * RFC 9110 If-None-Match, weak comparison. Evaluated here rather than with `req.fresh`, which
 * ignores validators whenever the request says `Cache-Control: no-cache` (as fetch() does for
 * every conditional request), although the origin should still answer 304 then.
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

function sendPending(res: Response): void {
  res.setHeader('Retry-After', String(RENDER_RETRY_AFTER));
  res.setHeader('Cache-Control', 'no-store');
  sendPage(
    res,
    202,
    'QR code rendering',
    '<h1>Almost there</h1><p>This QR code is being rendered; try again in a moment.</p>',
  );
}

interface ImageAsk extends Omit<VariantAsk, 'format'> {
  /** Drawn on request (a print format, or a PNG at another size), not one the worker stored. */
  variant: boolean;
  download: boolean;
}

const BLEED_MAX_MM = 20;

/** The image URL's query: `size` (PNG), `cmyk` and `bleed` (PDF, EPS), `download`; or why not. */
function imageAsk(
  format: ImageFormat | undefined,
  query: Record<string, unknown>,
): ImageAsk | string {
  const flag = (v: unknown) => v === '1' || v === 'true';
  const ask: ImageAsk = {
    variant: format === 'pdf' || format === 'eps',
    download: flag(query.download),
  };
  if (query.size !== undefined) {
    const size = Number(query.size);
    if (format !== 'png') return 'size applies to .png only';
    if (!Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE) {
      return `size must be an integer from ${MIN_SIZE} to ${MAX_SIZE}`;
    }
    ask.size = size;
    ask.variant = true;
  }
  if (query.cmyk !== undefined || query.bleed !== undefined) {
    if (format !== 'pdf' && format !== 'eps') return 'cmyk and bleed apply to .pdf and .eps only';
    ask.cmyk = flag(query.cmyk);
    if (query.bleed !== undefined) {
      const bleed = Number(query.bleed);
      if (!Number.isFinite(bleed) || bleed < 0 || bleed > BLEED_MAX_MM) {
        return `bleed must be a number of millimetres from 0 to ${BLEED_MAX_MM}`;
      }
      ask.bleedMm = Math.round(bleed * 10) / 10;
    }
  }
  return ask;
}

/**
 * Where a scan goes: a link code's URL; an app code's store for the phone scanning it (iPhone,
 * iPad, iPod: the App Store; Android: Google Play), the web URL for anything else or a missing store.
 */
export function scanTarget(qr: Pick<QrCodeRecord, 'type' | 'data'>, userAgent = ''): string {
  if (qr.type !== 'app') return qr.data as string;
  const app = qr.data as AppData;
  if (/\b(iPhone|iPad|iPod)\b/.test(userAgent) && app.ios) return app.ios;
  if (/\bAndroid\b/.test(userAgent) && app.android) return app.android;
  return app.web;
}

const tag = 'Visitors';

const pages = {
  image: endpoint({
    tag,
    summary: "A QR code's image",
    description:
      "`/qr/{alias}` in the code's own format, or `/qr/{alias}.png` / `.svg` / `.pdf` (vector) / `.eps` (vector). `.png?size=128..4096` draws another size (proven to decode, like every render); `.pdf` and `.eps` take `cmyk=1` (CMYK colours) and `bleed=<mm>` (0-20, the background runs into it; the PDF's TrimBox marks the cut); `download=1` adds a `Content-Disposition` download name. The worker draws these variants, and the eight last asked for of a render are kept; asked for while it draws one, the answer waits as for a render. Embeddable on any site (`Cross-Origin-Resource-Policy: cross-origin`); revalidate with `If-None-Match`. Asked for while the code is still rendering, the answer waits for the render to end (up to `QR_IMAGE_WAIT_MS`, 5 s by default), so an `<img>` shows the image however soon after creation it loads.",
    responses: {
      200: {
        description: 'The image',
        media: ['image/png', 'image/svg+xml', 'application/pdf', 'application/postscript'],
        headers: ['ETag'],
      },
      400: pageResponse('A query parameter out of range, or for another format'),
      202: pageResponse(
        'Still rendering (or drawing the variant) after the wait; `Retry-After` says when to ask again',
      ),
      304: { description: 'Unchanged since the ETag you sent' },
      ...notFoundResponses,
      422: pageResponse(
        'Rendering failed (the owner can see why in the API), or the variant asked for would not scan',
      ),
    },
    errors: VISITOR_ERRORS,
  }),
  scan: endpoint({
    tag,
    summary: 'Scan a dynamic (link or app) QR code',
    description:
      "Redirects to the code's URL and counts the scan. An `app` code sends iPhones and iPads to `ios`, Android phones to `android`, everyone else to `web`.",
    responses: { 302: redirectResponse('To the URL of the code'), ...notFoundResponses },
    errors: VISITOR_ERRORS,
  }),
};

/** Visitors' side of QR codes: the image, and the dynamic redirect of `link` codes. */
export function qrPublicRouter(deps: AppDeps): Router {
  const lookups = qrLookupCacheFor(deps);
  const images = qrImageCacheFor(deps);
  const waitMs = deps.config.qrImageWaitMs;
  const variants = { queue: deps.qrQueue, images, logger: deps.logger, waitMs };
  const router = Router();

  async function lookup(alias: string): Promise<QrCodeRecord | null> {
    if (!ALIAS_PATTERN.test(alias)) return null;
    return lookups.get(alias, async () => (await findQrByAlias(alias)) ?? null);
  }

  /**
   * The code once it is no longer rendering: waits for the worker's invalidation of the alias up
   * to `waitMs`, reading the code again at least as often as a pending one is cached (so a lost
   * message costs no more than it did to a client polling). Still pending when the wait runs out.
   * When the render waited for turns ready, the worker has handed its images over just before:
   * that version is the answer, with no read.
   */
  async function rendered(
    alias: string,
    format: QrFormat | undefined,
    res: Response,
  ): Promise<QrCodeRecord | null> {
    const first = await lookup(alias);
    if (first?.status !== 'pending' || waitMs === 0) return first;
    const deadline = Date.now() + waitMs;
    for (;;) {
      // Watching before reading again: no render's end can fall between the read and the wait.
      const watch = lookups.watch(alias);
      const qr = await lookup(alias);
      const left = deadline - Date.now();
      if (qr?.status !== 'pending' || !watch || left <= 0) {
        watch?.cancel();
        return qr;
      }
      const end = await waitForChange(watch, Math.min(left, PENDING_TTL_MS), res);
      if (end === 'hung-up') return qr;
      const key = qrImageKey(qr.id, qr.renderVersion, format ?? qr.format);
      if (end === 'changed' && images.peek(key)) return { ...qr, status: 'ready' };
    }
  }

  router.get('/qr/:file', pages.image, async (req, res) => {
    // Helmet's same-origin default would stop <img src> on the owner's own website.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    const match = IMAGE_FILE.exec(req.params.file);
    const asked = match?.[2] as ImageFormat | undefined;
    const ask = imageAsk(asked, req.query);
    if (typeof ask === 'string') {
      res.setHeader('Cache-Control', 'no-store');
      return sendPage(res, 400, 'Bad request', `<h1>Bad request</h1><p>${escapeHtml(ask)}</p>`);
    }
    const stored = asked === 'pdf' || asked === 'eps' ? undefined : asked;
    const qr = match?.[1] ? await rendered(match[1], stored, res) : null;
    if (!match || !qr) return sendPublicNotFound(res, req.path);
    if (qr.status === 'failed') {
      // Not a server fault, and retrying will not help: the owner must change the code.
      res.setHeader('Cache-Control', 'no-store');
      return sendPage(
        res,
        422,
        'QR code unavailable',
        '<h1>QR code unavailable</h1><p>This QR code could not be rendered. Its owner can see why in the API and fix it with an update.</p>',
      );
    }
    const format = stored ?? qr.format;
    let image: StoredImage | null;
    try {
      image =
        qr.status !== 'ready'
          ? null
          : ask.variant
            ? await awaitVariant(variants, qr, { ...ask, format: asked ?? qr.format }, res)
            : await images.get(qrImageKey(qr.id, qr.renderVersion, format), () =>
                findImage(qr.id, qr.renderVersion, format),
              );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      res.setHeader('Cache-Control', 'no-store');
      return sendPage(
        res,
        err.status,
        'QR code unavailable',
        `<h1>QR code unavailable</h1><p>${escapeHtml(err.message)}</p>`,
      );
    }
    if (!image) return sendPending(res);
    if (ask.download) {
      const ext = asked ?? qr.format;
      res.setHeader(
        'Content-Disposition',
        `attachment; filename="qr-${qr.alias}${ask.size ? `-${ask.size}` : ''}.${ext}"`,
      );
    }
    res.setHeader('ETag', image.etag);
    // The image at this address changes when its code is updated: cache, but revalidate.
    res.setHeader('Cache-Control', 'public, no-cache');
    if (matchesEtag(req.headers['if-none-match'], image.etag)) return res.status(304).end();
    res.type(image.contentType).send(image.bytes);
  });

  router.get('/s/:alias', pages.scan, async (req, res) => {
    const qr = await lookup(req.params.alias);
    if (!qr || !DYNAMIC_QR_TYPES.includes(qr.type)) return sendPublicNotFound(res, req.path);
    // Queued, not awaited: recording never delays the redirect. HEAD is a monitor, not a scan.
    if (req.method !== 'HEAD') deps.visits.record({ kind: 'qr', id: qr.id }, req);
    // Every scan must reach us to be counted: no cache may replay the redirect.
    res.setHeader('Cache-Control', 'private, no-store');
    res.redirect(302, scanTarget(qr, req.headers['user-agent']));
  });

  return router;
}
