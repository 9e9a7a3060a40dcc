import express, { Router, type ErrorRequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { IMPORT_SOURCES } from '../imports/import.model';
import { DEFAULT_SOURCE_URLS } from '../imports/imports.schemas';
import { getLink } from '../links/links.service';
import {
  CORNER_SHAPES,
  DEFAULT_LOGO_SIZE,
  DEFAULT_MARGIN,
  DOT_STYLES,
  ERROR_CORRECTIONS,
  FRAME_TYPES,
  GRADIENT_TYPES,
  MAX_FRAME_TEXT,
  MAX_LOGO_SIZE,
  MIN_LOGO_SIZE,
  MIN_MARGIN,
} from '../qr-codes/design/style';
import { QR_FORMATS, QR_TYPES } from '../qr-codes/qr-code.model';
import { MIN_CONTRAST } from '../qr-codes/qr-colors';
import { WIFI_ENCRYPTIONS } from '../qr-codes/qr-content';
import { getQr } from '../qr-codes/qr-codes.service';
import { DEFAULT_SIZE, MAX_SIZE, MIN_SIZE } from '../qr-codes/qr-codes.schemas';
import { notFound } from '../shared/errors/app-error';
import { toAppError } from '../shared/errors/error-handler';
import { accountPages } from './account.pages';
import { accountSwitchRouter, actingAccountId, resolveActingAccount } from './acting';
import { csrfToken, requireCsrf } from './csrf';
import { linkFormSpecs } from './link-forms';
import { errorPage } from './pages/error.page';
import { sendPage, sendView } from './pages/respond';
import { signInPage } from './pages/sign-in.page';
import { securityPages } from './security.pages';
import { signInCodePages } from './sign-in-code.routes';
import { resourceViews } from './resources';
import { requireSignedIn, signIn, signOut } from './sign-in.routes';
import { signInPageLimit } from './sign-in';
import { sessionUser } from './session-user';
import { teamPages } from './team.pages';

/** The dashboard's server-rendered pages; the resource pages are filled by web/app/app.js. */
export function dashboardPages(deps: AppDeps, apiRouteTable: ReadonlySet<string>): Router {
  const { config } = deps;
  const resources = resourceViews(apiRouteTable);
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '20kb' }));
  router.use(requireCsrf);

  const pageLimit = signInPageLimit(deps);
  router.get('/signin', pageLimit, (req, res) => {
    if (sessionUser(req)) return res.redirect(303, '/app/links');
    const next = typeof req.query.next === 'string' ? req.query.next : undefined;
    sendPage(res, 200, signInPage({ csrf: csrfToken(req), next }));
  });
  router.post('/signin', pageLimit, ...signIn(deps));
  router.post('/signout', signOut(deps));
  router.use(signInCodePages(deps));

  router.use(requireSignedIn);
  router.use(resolveActingAccount(deps));
  router.use(accountSwitchRouter(deps));
  router.use(teamPages(apiRouteTable));

  router.get('/', (_req, res) => res.redirect(303, '/app/links'));

  router.use(accountPages(deps));
  router.use(securityPages(deps));

  const linkForms = linkFormSpecs();
  router.get('/links', (req, res) => sendView(req, res, 'Links', 'links', linkForms));
  router.get('/links/new', (req, res) => sendView(req, res, 'New link', 'link-new', linkForms));
  router.get('/links/:id', async (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id < 1) throw notFound('No such link');
    await getLink(actingAccountId(req), id);
    sendView(req, res, 'Link', 'link', { id, ...linkForms });
  });

  const qrForm = {
    types: QR_TYPES,
    formats: QR_FORMATS,
    encryptions: WIFI_ENCRYPTIONS,
    size: { min: MIN_SIZE, max: MAX_SIZE, default: DEFAULT_SIZE },
    minContrast: MIN_CONTRAST,
    style: {
      dots: DOT_STYLES,
      corners: CORNER_SHAPES,
      gradients: GRADIENT_TYPES,
      frames: FRAME_TYPES,
      errorCorrections: ERROR_CORRECTIONS,
      margin: { min: MIN_MARGIN, max: 16, default: DEFAULT_MARGIN },
      frameText: MAX_FRAME_TEXT,
      logoSize: { min: MIN_LOGO_SIZE, max: MAX_LOGO_SIZE, default: DEFAULT_LOGO_SIZE },
    },
  };
  router.get('/qr', (req, res) => sendView(req, res, 'QR codes', 'qrs', qrForm));
  router.get('/qr/new', (req, res) => sendView(req, res, 'New QR code', 'qr-new', qrForm));
  router.get('/qr/:id', async (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id < 1) throw notFound('No such QR code');
    const qr = await getQr(actingAccountId(req), id);
    sendView(req, res, 'QR code', 'qr', {
      id,
      ...qrForm,
      // Stored fields the API's details do not repeat, to fill the edit form.
      record: {
        type: qr.type,
        data: qr.data,
        foreground: qr.foreground,
        background: qr.background,
        logo: qr.logo,
        size: qr.size,
        format: qr.format,
        style: qr.style ?? null,
      },
    });
  });

  router.get('/import', (req, res) =>
    sendView(req, res, 'Import', 'import', {
      sources: IMPORT_SOURCES,
      defaults: DEFAULT_SOURCE_URLS,
    }),
  );

  router.get('/r/:resource', (req, res) => {
    const resource = resources.get(String(req.params.resource));
    if (!resource) throw notFound('No such page');
    const dns =
      resource.key === 'domains'
        ? { host: new URL(config.publicUrl).hostname, targets: config.domainTargets }
        : undefined;
    sendView(req, res, resource.title, 'resource', { resource, dns });
  });

  router.use((req) => {
    throw notFound(`Nothing lives at /app${req.path}`);
  });
  router.use(pageErrors(deps));
  return router;
}

/** Renders any failure of a dashboard page as a page with its status (429 on sign-in: the form). */
export function pageErrors(deps: AppDeps): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    if (appError.status >= 500) {
      (req.log ?? deps.logger).error({ err: appError.cause ?? err }, 'dashboard page failed');
    }
    for (const [name, value] of Object.entries(appError.headers)) {
      if (name.toLowerCase() !== 'www-authenticate') res.setHeader(name, value);
    }
    const message =
      appError.status >= 500
        ? 'Something went wrong on our side. Please try again.'
        : appError.message;
    const csrf = req.session ? csrfToken(req) : '';
    if ((req.path === '/signin' || req.path === '/signin/code') && appError.status < 500) {
      return sendPage(res, appError.status, signInPage({ csrf, error: message }));
    }
    sendPage(
      res,
      appError.status,
      errorPage({ csrf, signedIn: Boolean(sessionUser(req)), status: appError.status, message }),
    );
  };
}
