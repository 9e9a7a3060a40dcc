import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { accountUpdateSchema } from '../account/account.schemas';
import { updateAccount } from '../account/account.service';
import type { AppDeps } from '../deps';
import { linkCreateSchema, linkUpdateSchema } from '../links/links.schemas';
import { getLink } from '../links/links.service';
import { QR_FORMATS, QR_TYPES } from '../qr-codes/qr-code.model';
import { MIN_CONTRAST } from '../qr-codes/qr-colors';
import { WIFI_ENCRYPTIONS } from '../qr-codes/qr-content';
import { getQr } from '../qr-codes/qr-codes.service';
import { DEFAULT_SIZE, MAX_SIZE, MIN_SIZE } from '../qr-codes/qr-codes.schemas';
import { notFound } from '../shared/errors/app-error';
import { toAppError } from '../shared/errors/error-handler';
import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import { verifyPassword } from '../shared/secrets';
import { findUserById, rotateApiKey } from '../users/users.service';
import { csrfToken, requireCsrf } from './csrf';
import { formFields, type FieldHint } from './form-fields';
import { accountPage, type AccountView } from './pages/account.page';
import { errorPage } from './pages/error.page';
import { signInPage } from './pages/sign-in.page';
import { viewPage } from './pages/view.page';
import { resourceViews } from './resources';
import { passwordStamp } from './session';
import { requireSignedIn, signIn, signOut } from './sign-in.routes';
import { sessionUser } from './session-user';

const linkHints: Record<string, FieldHint> = {
  url: { label: 'Destination URL', kind: 'url' },
  type: {
    kind: 'select',
    label: 'What visitors get',
    options: [
      { value: 'direct', label: 'Direct redirect' },
      { value: 'frame', label: 'The page in a frame (pixels fire)' },
      { value: 'splash', label: 'A splash page first' },
      { value: 'overlay', label: 'The page with a CTA overlay' },
    ],
  },
  custom: {
    label: 'Alias',
    help: '3-64 letters, digits, hyphens or underscores; random when empty.',
  },
  domain: {
    label: 'Domain',
    kind: 'select',
    optionsFrom: { path: '/domains', key: 'domains', value: 'domain', label: 'domain' },
    help: 'Empty: the service’s own domain.',
  },
  title: { label: 'Title' },
  description: { kind: 'textarea' },
  expiry: { kind: 'datetime', label: 'Expires', help: 'Your local time.' },
  password: { kind: 'password', label: 'Password', help: 'Visitors must enter it first.' },
  pixels: {
    kind: 'multiselect',
    optionsFrom: { path: '/pixels', key: 'pixels', value: 'id', label: 'name' },
  },
  splash: {
    kind: 'select',
    label: 'Splash page',
    optionsFrom: { path: '/splash', key: 'splash', value: 'id', label: 'name' },
  },
  overlay: {
    kind: 'select',
    label: 'CTA overlay',
    optionsFrom: { path: '/overlay', key: 'cta', value: 'id', label: 'name' },
  },
  geotarget: {
    kind: 'json',
    label: 'Country targeting',
    help: 'JSON list, e.g. [{"location":"DE","link":"https://example.de"}]',
  },
  devicetarget: {
    kind: 'json',
    label: 'Device targeting',
    help: 'JSON list, e.g. [{"device":"iPhone","link":"https://example.com/ios"}]',
  },
  languagetarget: {
    kind: 'json',
    label: 'Language targeting',
    help: 'JSON list, e.g. [{"language":"fr","link":"https://example.fr"}]',
  },
  parameters: {
    kind: 'json',
    label: 'Parameters',
    help: 'JSON list, e.g. [{"name":"utm_source","value":"qr"}]',
  },
  metatitle: { label: 'Meta title' },
  metadescription: { label: 'Meta description', kind: 'textarea' },
  metaimage: { label: 'Meta image URL', kind: 'url' },
};

function page(res: Response, status: number, body: string): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store').send(body);
}

function planOf(deps: AppDeps, user: NonNullable<ReturnType<typeof sessionUser>>) {
  const { config } = deps;
  return {
    name: user.status,
    rateLimit: config.planRateLimits[user.status] ?? config.defaultRateLimit,
    windowSeconds: Math.round(config.rateLimitWindowMs / 1000),
    expires: formatOptionalDateTime(user.expires),
  };
}

/** The dashboard's server-rendered pages; the resource pages are filled by web/app/app.js. */
export function dashboardPages(deps: AppDeps, apiRouteTable: ReadonlySet<string>): Router {
  const { config } = deps;
  const resources = resourceViews(apiRouteTable);
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '20kb' }));
  router.use(requireCsrf);

  router.get('/signin', (req, res) => {
    if (sessionUser(req)) return res.redirect(303, '/app/links');
    const next = typeof req.query.next === 'string' ? req.query.next : undefined;
    page(res, 200, signInPage({ csrf: csrfToken(req), next }));
  });
  router.post('/signin', ...signIn(deps));
  router.post('/signout', signOut);

  router.use(requireSignedIn);
  const user = (req: Request) => sessionUser(req) as NonNullable<ReturnType<typeof sessionUser>>;
  const view = (req: Request, res: Response, title: string, name: string, data: unknown) =>
    page(
      res,
      200,
      viewPage({
        csrf: csrfToken(req),
        path: req.path === '/' ? '' : `/app${req.path}`,
        title,
        view: name,
        data,
      }),
    );

  router.get('/', (_req, res) => res.redirect(303, '/app/links'));

  const account = (req: Request, extra: Partial<AccountView> = {}): string => {
    const u = user(req);
    return accountPage({
      csrf: csrfToken(req),
      email: u.email,
      username: u.username,
      registered: formatDateTime(u.registered),
      plan: planOf(deps, u),
      ...extra,
    });
  };
  const notices: Record<string, string> = {
    email: 'Your email has been changed.',
    password: 'Your password has been changed.',
  };
  router.get('/account', (req, res) => {
    const done = typeof req.query.done === 'string' ? notices[req.query.done] : undefined;
    page(res, 200, account(req, { notice: done }));
  });

  /** Changing the email or the password asks for the current password: a stolen session is not enough. */
  const changeAccount = (field: 'email' | 'password') => async (req: Request, res: Response) => {
    const u = user(req);
    const body = req.body as Record<string, string | undefined>;
    const currentKey = field === 'email' ? 'current' : 'passwordCurrent';
    if (!u.passwordHash || !(await verifyPassword(body.current ?? '', u.passwordHash))) {
      return page(
        res,
        422,
        account(req, { errors: { [currentKey]: 'The current password is wrong' } }),
      );
    }
    const { error, value } = accountUpdateSchema.validate({ [field]: body[field] ?? '' });
    if (error) {
      const message = error.details[0]?.message.replace(/"/g, '') ?? error.message;
      return page(res, 422, account(req, { errors: { [field]: message } }));
    }
    try {
      await updateAccount(u.id, value);
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) throw err;
      return page(res, appError.status, account(req, { errors: { [field]: appError.message } }));
    }
    if (field === 'password') {
      // This session goes on; the user's other sessions end with the old password.
      const updated = await findUserById(u.id);
      req.session.passwordStamp = passwordStamp(updated?.passwordHash);
    }
    res.redirect(303, `/app/account?done=${field}`);
  };
  router.post('/account/email', changeAccount('email'));
  router.post('/account/password', changeAccount('password'));
  router.post('/account/key', async (req, res) => {
    const newKey = await rotateApiKey(user(req).id);
    page(res, 200, account(req, { newKey }));
  });

  const linkForms = () => ({
    create: { path: '/url/add', fields: formFields(linkCreateSchema, linkHints) },
    update: { path: '/url/:id/update', fields: formFields(linkUpdateSchema, linkHints) },
  });
  router.get('/links', (req, res) => view(req, res, 'Links', 'links', linkForms()));
  router.get('/links/new', (req, res) => view(req, res, 'New link', 'link-new', linkForms()));
  router.get('/links/:id', async (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id < 1) throw notFound('No such link');
    await getLink(user(req).id, id);
    view(req, res, 'Link', 'link', { id, ...linkForms() });
  });

  const qrForm = {
    types: QR_TYPES,
    formats: QR_FORMATS,
    encryptions: WIFI_ENCRYPTIONS,
    size: { min: MIN_SIZE, max: MAX_SIZE, default: DEFAULT_SIZE },
    minContrast: MIN_CONTRAST,
  };
  router.get('/qr', (req, res) => view(req, res, 'QR codes', 'qrs', qrForm));
  router.get('/qr/new', (req, res) => view(req, res, 'New QR code', 'qr-new', qrForm));
  router.get('/qr/:id', async (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id < 1) throw notFound('No such QR code');
    const qr = await getQr(user(req).id, id);
    view(req, res, 'QR code', 'qr', {
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
      },
    });
  });

  router.get('/r/:resource', (req, res) => {
    const resource = resources.get(String(req.params.resource));
    if (!resource) throw notFound('No such page');
    const dns =
      resource.key === 'domains'
        ? { host: new URL(config.publicUrl).hostname, targets: config.domainTargets }
        : undefined;
    view(req, res, resource.title, 'resource', { resource, dns });
  });

  router.use((req) => {
    throw notFound(`Nothing lives at /app${req.path}`);
  });
  router.use(pageErrors(deps));
  return router;
}

function pageErrors(deps: AppDeps): ErrorRequestHandler {
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
    if (req.path === '/signin' && appError.status < 500) {
      return page(res, appError.status, signInPage({ csrf, error: message }));
    }
    page(
      res,
      appError.status,
      errorPage({ csrf, signedIn: Boolean(sessionUser(req)), status: appError.status, message }),
    );
  };
}
