import type { Request, Response } from 'express';
import { accountSwitchOf } from '../acting';
import { csrfToken } from '../csrf';
import { viewPage } from './view.page';

/** A dashboard page: never cached, since every page carries the session's CSRF token. */
export function sendPage(res: Response, status: number, body: string): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store').send(body);
}

/** A page that web/app/app.js fills: `name` picks the view, `data` is what it starts from. */
export function sendView(req: Request, res: Response, title: string, name: string, data: unknown) {
  sendPage(
    res,
    200,
    viewPage({
      csrf: csrfToken(req),
      path: `${req.baseUrl}${req.path === '/' ? '' : req.path}`,
      title,
      view: name,
      data,
      accounts: accountSwitchOf(req),
    }),
  );
}
