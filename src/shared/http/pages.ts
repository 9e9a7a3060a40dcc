import type { Response } from 'express';

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

/** A minimal, self-contained HTML page for visitors (public side only; the API always answers JSON). */
export function renderPage(title: string, bodyHtml: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}a{color:#0b57d0}</style></head><body>${bodyHtml}</body></html>`;
}

export function sendPage(res: Response, status: number, title: string, bodyHtml: string): void {
  res.status(status).type('html').send(renderPage(title, bodyHtml));
}

/** An HTML answer in the OpenAPI document. */
export const pageResponse = (description: string) => ({
  description,
  media: ['text/html'] as const,
});

/** A redirect in the OpenAPI document. */
export const redirectResponse = (description: string) => ({
  description,
  headers: ['Location'] as const,
});

/**
 * Failure statuses every visitor route that reads MongoDB may answer besides its pages: 503
 * while MongoDB or Redis is away.
 */
export const VISITOR_ERRORS = [503] as const;

/** What any visitor route may answer for a path that names nothing (see sendPublicNotFound). */
export const notFoundResponses = {
  404: pageResponse('Nothing lives here'),
} as const;
