import type { RequestHandler, Response } from 'express';
import { escapeHtml, sendPage } from './pages';

/** The branded domain a public request arrived on (set by the domains module's host middleware). */
export interface BrandedDomainContext {
  id: number;
  userId: number;
  /** Normalised origin, e.g. `https://go.example.com`. */
  domain: string;
  redirectroot: string | null;
  redirect404: string | null;
  /** App-link files as served (JSON text), null when not set. */
  appleAppSiteAssociation?: string | null;
  assetLinks?: string | null;
  /** Only a `verified` domain serves its links (issue 29, M6); the others answer a page saying why. */
  status: 'pending' | 'verified' | 'suspended';
}

export function brandedDomainOf(res: Response): BrandedDomainContext | undefined {
  return res.locals.brandedDomain as BrandedDomainContext | undefined;
}

export function setBrandedDomain(res: Response, domain: BrandedDomainContext): void {
  res.locals.brandedDomain = domain;
}

/** What a visitor gets for a path that names nothing: the branded domain's redirect404, else a 404 page. */
export function sendPublicNotFound(res: Response, path: string): void {
  const redirect404 = brandedDomainOf(res)?.redirect404;
  if (redirect404) {
    res.redirect(302, redirect404);
    return;
  }
  sendPage(
    res,
    404,
    'Not found',
    `<h1>Not found</h1><p>Nothing lives at <code>${escapeHtml(path)}</code>.</p>`,
  );
}

export const publicNotFound: RequestHandler = (req, res) => sendPublicNotFound(res, req.path);
