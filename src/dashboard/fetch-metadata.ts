import type { RequestHandler } from 'express';
import { forbidden } from '../shared/errors/app-error';

/** `/app` or a page under it, on the request's own origin. */
function isDashboardPage(referrer: string, origin: string): boolean {
  try {
    const url = new URL(referrer);
    return url.origin === origin && (url.pathname === '/app' || url.pathname.startsWith('/app/'));
  } catch {
    return false;
  }
}

/**
 * When the dashboard shares its origin with visitor pages (no separate APP_URL), a script on a
 * visitor page (an owner's tag manager) runs on the dashboard's origin. A browser that sends
 * fetch metadata says where a call comes from: /app/api answers only same-origin calls made from
 * an /app page (the dashboard's pages send their URL as the referrer, Referrer-Policy:
 * same-origin; visitor pages send none, Referrer-Policy: no-referrer). A hostile script can
 * still forge its referrer, so this narrows the hole; only APP_URL closes it (see the README).
 */
export const sameOriginCalls: RequestHandler = (req, _res, next) => {
  const site = req.headers['sec-fetch-site'];
  if (site === undefined) return next();
  const origin = `${req.protocol}://${req.get('host') ?? ''}`;
  const referrer = req.headers.referer;
  if (site !== 'same-origin' || !referrer || !isDashboardPage(referrer, origin)) {
    return next(forbidden('The dashboard API answers only calls made by the dashboard’s pages'));
  }
  next();
};
