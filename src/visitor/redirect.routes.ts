import express, { Router, type Request, type Response } from 'express';
import type { AppDeps } from '../deps';
import { endpoint } from '../shared/http/endpoint';
import {
  notFoundResponses,
  VISITOR_ERRORS,
  pageResponse,
  redirectResponse,
} from '../shared/http/pages';
import { assertMongoUp } from '../shared/infra/dependencies';
import { brandedDomainOf, sendPublicNotFound } from '../shared/http/public-context';
import { verifyPassword } from '../shared/secrets';
import { linkCacheFor, linkCacheKey, type LinkTarget } from '../links/link-cache';
import { DEFAULT_DOMAIN_ID } from '../links/link.model';
import { PasswordGuard } from './password-guard';
import { sendAppPage } from './app-page';
import { ClickLimits } from './click-limit';
import {
  ALIAS_SHAPE,
  decideRedirect,
  chooseDestination,
  isAppUrl,
  loadLinkTarget,
  storedClicksOf,
} from './redirect';
import { sendLinkGone, sendPasswordForm, sendTooManyAttempts } from '../visitor/redirect.pages';
import { visitorResponder, wantsPreview } from './visitor.public';
import { clientKey } from '../shared/http/client-key';

/**
 * `GET /:alias`, the hot path: in the steady state it reads only the in-process cache, and the
 * click is queued by the visits module without being awaited.
 */
const tag = 'Visitors';
const gone = pageResponse('The link has expired');

const pages = {
  visit: endpoint({
    tag,
    summary: 'Follow a short link',
    description:
      'Redirects to the long URL and counts the click (HEAD does not count). A password-protected link answers its password form. On a branded domain, an unknown alias redirects to its `redirect404` when set.',
    responses: {
      200: pageResponse('The password form of a protected link'),
      302: redirectResponse('To the long URL'),
      ...notFoundResponses,
      410: gone,
    },
    errors: VISITOR_ERRORS,
  }),
  unlock: endpoint({
    tag,
    summary: 'Send the password of a protected link',
    description:
      'An urlencoded form with `password`; ten wrong tries lock the visitor out a while.',
    responses: {
      302: redirectResponse('To the long URL'),
      401: pageResponse('Wrong password: the form again'),
      ...notFoundResponses,
      410: gone,
      429: pageResponse('Too many wrong passwords; `Retry-After` says how long to wait'),
    },
    errors: [...VISITOR_ERRORS, 400, 413, 415],
  }),
};

export function redirectRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const guard = new PasswordGuard(deps.redis, deps.keys, (ip) => deps.visits.hashAddress(ip));
  const visitorPage = visitorResponder(deps);
  const limits = new ClickLimits(deps.redis, deps.keys);
  const storedClicks = storedClicksOf(deps.visits);
  const router = Router();

  function cacheKeyOf(req: Request, res: Response): string | null {
    const alias = req.params.alias as string;
    if (!ALIAS_SHAPE.test(alias)) return null;
    return linkCacheKey(brandedDomainOf(res)?.id ?? DEFAULT_DOMAIN_ID, alias);
  }

  async function resolve(req: Request, res: Response): Promise<LinkTarget | null> {
    const key = cacheKeyOf(req, res);
    if (!key) return null;
    const domainId = brandedDomainOf(res)?.id ?? DEFAULT_DOMAIN_ID;
    const alias = req.params.alias as string;
    return cache.get(key, async () => {
      assertMongoUp();
      return loadLinkTarget(domainId, alias, storedClicks);
    });
  }

  /** A bare 302: no content negotiation nor body, since nobody reads a redirect's body. */
  function found(res: Response, location: string): void {
    res.statusCode = 302;
    res.setHeader('Location', location);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Length', '0');
    res.end();
  }

  /** An expired link (by date or by clicks): its `expiredurl`, else the 410 page. Not a click. */
  function expired(res: Response, target: LinkTarget): void {
    if (target.expiredUrl) return found(res, target.expiredUrl);
    sendLinkGone(res);
  }

  /**
   * A visit of a link with `maxclicks` takes one click from its limit first; HEAD and link-preview
   * crawlers take none, since they are never counted.
   */
  function redirect(req: Request, res: Response, target: LinkTarget): void | Promise<void> {
    const limit = target.limit;
    if (!limit || req.method === 'HEAD' || wantsPreview(req, target.behaviour))
      return visit(req, res, target);
    return limits
      .take(target.id, limit)
      .then((ok) => (ok ? visit(req, res, target) : expired(res, target)));
  }

  function visit(req: Request, res: Response, target: LinkTarget): void {
    if (target.behaviour) return visitorPage(req, res, target);
    const destination = chooseDestination(req, res, target, deps.config.countryHeader);
    // HEAD is what link unfurlers and monitors send: not a visit.
    if (req.method !== 'HEAD')
      deps.visits.record({ kind: 'link', id: target.id, variant: destination.variant }, req);
    if (isAppUrl(destination.url)) return sendAppPage(res, destination.url, target.url);
    found(res, destination.url);
  }

  function answer(req: Request, res: Response, target: LinkTarget | null): void | Promise<void> {
    if (!target) return sendPublicNotFound(res, req.path);
    const decision = decideRedirect(target, Date.now());
    if (decision.kind === 'gone') return expired(res, target);
    // Crawlers get the preview tags even of a protected link: they never reveal its target.
    if (decision.kind === 'password' && !wantsPreview(req, target.behaviour))
      return sendPasswordForm(res, 200, req.params.alias as string);
    // Returned, not dropped: a click limit that cannot be taken (Redis away) rejects, and only a
    // returned promise reaches Express's error handler; dropped, the visitor waited forever.
    return redirect(req, res, target);
  }

  // Synchronous when the link is cached: the steady state costs no promise and no I/O but the click.
  router.get('/:alias', pages.visit, (req, res) => {
    const key = cacheKeyOf(req, res);
    const cached = key ? cache.peek(key) : null;
    if (cached !== undefined) {
      if (key) cache.lookups.hit.inc();
      return answer(req, res, cached);
    }
    return resolve(req, res).then((target) => answer(req, res, target));
  });

  router.post(
    '/:alias',
    pages.unlock,
    express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }),
    async (req, res) => {
      const target = await resolve(req, res);
      if (!target) return sendPublicNotFound(res, req.path);
      const decision = decideRedirect(target, Date.now());
      if (decision.kind === 'gone') return expired(res, target);
      if (decision.kind === 'redirect' || !target.passwordHash) return redirect(req, res, target);
      const ip = clientKey(req);
      const wait = await guard.takeAttempt(target.id, ip);
      if (wait > 0) return sendTooManyAttempts(res, wait);
      const body = req.body as Record<string, unknown> | undefined;
      const password = typeof body?.password === 'string' ? body.password : '';
      if (password && (await verifyPassword(password, target.passwordHash))) {
        await guard.succeeded(target.id, ip);
        return redirect(req, res, target);
      }
      sendPasswordForm(res, 401, req.params.alias);
    },
  );

  return router;
}
